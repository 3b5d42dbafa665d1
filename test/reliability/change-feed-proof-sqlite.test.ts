// The change feed's proof on SQLite (a temporary file shared by the four workers).
import { sqliteDemoEngine } from "../demo/demo-engines.js";
import { defineChangeFeedProof, proofSize } from "./change-feed-proof-suite.js";

defineChangeFeedProof(sqliteDemoEngine, proofSize({ writes: 1_500, downMs: 10_000 }));

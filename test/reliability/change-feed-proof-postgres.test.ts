// The change feed's proof on PostgreSQL (a scratch database).
import { postgresDemoEngine } from "../demo/demo-engines.js";
import { defineChangeFeedProof, proofSize } from "./change-feed-proof-suite.js";

defineChangeFeedProof(postgresDemoEngine, proofSize({ writes: 1_500, downMs: 10_000 }));

// The change feed's proof on MariaDB (a scratch database).
import { mariaDbDemoEngine } from "../demo/demo-engines.js";
import { defineChangeFeedProof, proofSize } from "./change-feed-proof-suite.js";

defineChangeFeedProof(mariaDbDemoEngine, proofSize({ writes: 1_500, downMs: 10_000 }));

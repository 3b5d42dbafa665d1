// Runs the walkthrough against a running demo: node dist/src/main.js [origin], origin http://127.0.0.1:8022 by default.
import { walkthrough } from "./demo-client.js";

const origin = process.argv[2] ?? "http://127.0.0.1:8022";
console.log(JSON.stringify(await walkthrough(origin), null, 2));

// Writes docs/errors.md from the messages objects of src/ (see test/messages-catalog.ts). Run after a build:
//   npm run build && node scripts/errors-doc.mjs
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { errorsDoc, messageCatalog, repositoryRoot } from "../dist/test/messages-catalog.js";

const target = join(repositoryRoot, "docs", "errors.md");
writeFileSync(target, errorsDoc(await messageCatalog()));
console.log(`wrote ${target}`);

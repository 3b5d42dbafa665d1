#!/usr/bin/env node
/**
 * The `tenon` command (`npx tenon ...`). Its one command today is `tenon schema print|diff|apply`
 * (docs/schema.md).
 * @packageDocumentation
 */
import { runSchemaCommand } from "../schema/schema-command.js";
import { SchemaMessages } from "../schema/schema-messages.js";

const [command, ...rest] = process.argv.slice(2);
const output = { out: (text: string) => process.stdout.write(text), err: (text: string) => process.stderr.write(text) };
if (command === "schema") {
  process.exitCode = await runSchemaCommand(rest, output);
} else {
  output.err(`${SchemaMessages.usage}\n`);
  process.exitCode = 2;
}

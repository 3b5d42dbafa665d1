import type { SchemaDifference } from "../errors.js";
import { SchemaMessages } from "./schema-messages.js";

/** DDL statements as a script: each ends with `;`, separated by a blank line, ready to keep under version control. */
export class SchemaScript {
  /** The statements, without their trailing semicolon. */
  readonly statements: readonly string[];

  /** @param statements the statements, in an order that runs. */
  constructor(statements: readonly string[]) {
    this.statements = statements;
  }

  /** The script text. */
  toString(): string {
    return this.statements.map((statement) => `${statement};\n`).join("\n");
  }
}

/**
 * What `Schema.diff` found: every difference between the mapping and the live database, and the additive
 * statements that close the ones Tenon changes (`Schema.apply` runs exactly these).
 */
export class SchemaDiff {
  /** Every difference, entity by entity in the order the entities were given. */
  readonly differences: readonly SchemaDifference[];
  /** The additive DDL: CREATE TABLE, ADD COLUMN, CREATE SEQUENCE, CREATE INDEX, foreign keys of new tables. */
  readonly script: SchemaScript;

  /** @internal */
  constructor(differences: readonly SchemaDifference[], statements: readonly string[]) {
    this.differences = differences;
    this.script = new SchemaScript(statements);
  }

  /** Whether the database matches the mapping. */
  get isEmpty(): boolean {
    return this.differences.length === 0;
  }

  /** The differences Tenon will not change (it never drops, narrows or alters a column). */
  get unchanged(): readonly SchemaDifference[] {
    return this.differences.filter((difference) => difference.statement === undefined);
  }

  /** The differences grouped by entity, in order. */
  byEntity(): ReadonlyMap<string, readonly SchemaDifference[]> {
    const groups = new Map<string, SchemaDifference[]>();
    for (const difference of this.differences) {
      const group = groups.get(difference.entity);
      if (group === undefined) groups.set(difference.entity, [difference]);
      else group.push(difference);
    }
    return groups;
  }

  /** The report: one line per difference, then the statements Tenon proposes and what it leaves alone. */
  toString(): string {
    if (this.isEmpty) return `${SchemaMessages.upToDate}\n`;
    const lines = this.differences.map((difference) => difference.message);
    if (this.script.statements.length > 0) lines.push("", SchemaMessages.proposedHeader, "", this.script.toString().trimEnd());
    if (this.unchanged.length > 0) lines.push("", SchemaMessages.notChangedHeader, ...this.unchanged.map((each) => `--   ${each.message}`));
    return `${lines.join("\n")}\n`;
  }
}

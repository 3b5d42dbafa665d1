import { TenonError } from "../errors.js";
import type { Dialect } from "./dialect.js";
import type { CompiledStatement } from "./entity-statements.js";
import { SqlMessages } from "./sql-messages.js";

/** SQL of the application with `:name` parameters, in the engine's placeholder form with its values converted. */
export function compileApplicationSql(sql: string, parameters: Readonly<Record<string, unknown>>, dialect: Dialect): CompiledStatement {
  const values = new Map(Object.entries(parameters).map(([name, value]) => [name, dialect.toParameter(value)]));
  const positional: unknown[] = [];
  return { sql: compileNamedParameters(sql, values, dialect, positional), parameters: positional };
}

/**
 * Turns SQL written with `:name` parameters into the engine's positional form, skipping string
 * literals, quoted identifiers, comments and PostgreSQL `::` casts. Answers the SQL and the values in
 * placeholder order; a name without a value is an error.
 */
export function compileNamedParameters(sql: string, values: ReadonlyMap<string, unknown>, dialect: Dialect, positional: unknown[]): string {
  let out = "";
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const ch = sql[i];
    if (ch === "'" || ch === '"' || ch === "`") {
      const end = closingQuote(sql, i, ch);
      out += sql.slice(i, end);
      i = end;
    } else if (ch === "-" && sql[i + 1] === "-") {
      const end = sql.indexOf("\n", i);
      const stop = end < 0 ? n : end;
      out += sql.slice(i, stop);
      i = stop;
    } else if (ch === "/" && sql[i + 1] === "*") {
      const end = sql.indexOf("*/", i + 2);
      const stop = end < 0 ? n : end + 2;
      out += sql.slice(i, stop);
      i = stop;
    } else if (ch === ":" && sql[i + 1] === ":") {
      out += "::";
      i += 2;
    } else if (ch === ":" && /[A-Za-z_]/.test(sql[i + 1] ?? "")) {
      let end = i + 1;
      while (end < n && /\w/.test(sql[end])) end++;
      const name = sql.slice(i + 1, end);
      if (!values.has(name)) throw new TenonError(SqlMessages.parameterWithoutValue(name));
      out += dialect.placeholder(positional.length);
      positional.push(values.get(name));
      i = end;
    } else {
      out += ch;
      i++;
    }
  }
  return out;
}

function closingQuote(sql: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] === quote) {
      if (sql[i + 1] === quote) i += 2;
      else return i + 1;
    } else i++;
  }
  return sql.length;
}

import { generateFunction } from "../generated-code.js";
import type { FieldRead } from "./json-plan.js";

/** Reads the members of a JSON object into an entity (see `scalarReaderOf`). */
export type ScalarReader = (json: Readonly<Record<string, unknown>>, entity: object) => void;

/**
 * The reader of a plan whose members read are all scalar columns (no `Lazy` reference, no detail list): for each
 * member in plan order, when the object has it as an own property, its value decoded into the entity, as
 * `entityFromJson`'s loop reads it (the same failures, in the same order). Built for the plan as one function, a
 * statement per member, which V8 keeps monomorphic: the loop loads every member at one site and calls every decoder
 * and setter from one site. Nothing of the mapping but indexes enters the text. Undefined for any other plan, or
 * where the platform refuses code generation (the loop then reads).
 */
export function scalarReaderOf(reads: readonly FieldRead[]): ScalarReader | undefined {
  const parameters: string[] = ["hasOwn"];
  const values: unknown[] = [Object.hasOwn];
  const statements: string[] = [];
  for (let i = 0; i < reads.length; i++) {
    const read = reads[i];
    if (read.kind !== "column" || read.column.type.kind === "lazy") return undefined;
    parameters.push(`name${i}`, `decode${i}`, `set${i}`);
    values.push(read.name, read.decode, read.column.set);
    statements.push(`if (hasOwn(json, name${i})) set${i}(entity, decode${i}(json[name${i}]));`);
  }
  return generateFunction<ScalarReader>(
    parameters,
    values,
    `return function readScalars(json, entity) {\n  ${statements.join("\n  ")}\n};`,
  );
}

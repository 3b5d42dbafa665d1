import { generateFunction } from "../generated-code.js";
import { Lazy } from "../mapping/lazy.js";
import type { FieldWrite } from "./json-plan.js";
import type { JsonObject } from "./json-value.js";

/** Writes one entity without expanding anything: its scalars and the `<name>Id` of its references. */
export type FlatWriter = (entity: object) => JsonObject;

/**
 * The flat writer of one entity class. Where the platform allows code generation it is a function built for
 * the class (one object literal, one call per field), which V8 keeps monomorphic: the generic loop calls a
 * different getter and encoder at the same call site for every field, so none of them can be inlined, and it
 * stores every key through the megamorphic keyed-store path. The answers are the generic loop's (tested).
 */
export function flatWriterOf(writes: readonly FieldWrite[]): FlatWriter {
  return compileFlatWriter(writes) ?? ((entity) => writeFlat(entity, writes));
}

/** The generic flat writer: the definition the compiled one follows. @internal */
export function writeFlat(entity: object, writes: readonly FieldWrite[]): JsonObject {
  const json: JsonObject = {};
  for (const field of writes) {
    if (field.kind === "scalar") json[field.name] = field.encode(field.get(entity));
    else if (field.kind === "reference") json[field.idName] = referenceId(field.get(entity));
  }
  return json;
}

function referenceId(lazy: unknown): number | null {
  return lazy instanceof Lazy ? lazy.id : null;
}

/**
 * Builds `(entity) => ({ "name": encode0(get0(entity)), "ownerId": referenceId(get1(entity)), ... })`. Names
 * are written as JSON string literals, so no name can break out of its key; `__proto__`, which an object
 * literal would take as the prototype, and a platform that refuses code generation
 * (`--disallow-code-generation-from-strings`) leave the generic loop in place (undefined).
 * @internal
 */
export function compileFlatWriter(writes: readonly FieldWrite[]): FlatWriter | undefined {
  const parameters: string[] = ["referenceId"];
  const values: unknown[] = [referenceId];
  const properties: string[] = [];
  for (const field of writes) {
    if (field.kind === "detail") continue;
    const key = field.kind === "scalar" ? field.name : field.idName;
    if (key === "__proto__") return undefined;
    const i = properties.length;
    parameters.push(`get${i}`);
    values.push(field.get);
    if (field.kind === "scalar") {
      parameters.push(`encode${i}`);
      values.push(field.encode);
      properties.push(`${JSON.stringify(key)}: encode${i}(get${i}(entity))`);
    } else {
      properties.push(`${JSON.stringify(key)}: referenceId(get${i}(entity))`);
    }
  }
  return generateFunction<FlatWriter>(
    parameters,
    values,
    `return function writeFlat(entity) {\n  return {\n    ${properties.join(",\n    ")}\n  };\n};`,
  );
}

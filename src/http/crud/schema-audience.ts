import { isDeserialized, isSerialized } from "../../json/json-visibility.js";
import type { ColumnMapping, EntityMapping } from "../../mapping/entity-mapping.js";
import type { PolicyCaller } from "../../policy/caller.js";
import { CallerPolicy } from "../../policy/caller-policy.js";
import { entityPolicyOf } from "../../policy/entity-policy.js";
import type { PolicyOperation } from "../../policy/policy-operation.js";
import type { PolicyLookup } from "../../session/policy-scope.js";

/** Whether a reader of the document reads a member in every answer, in some (a policy hides it on some rows or from some callers), or never. */
export type SchemaReading = "always" | "sometimes" | "never";

/**
 * Who an OpenAPI document is written for: every caller (no role), or one caller's role under the entities'
 * policies. The schemas ask it which members an answer carries and a body may write, and which operations exist.
 */
export interface SchemaAudience {
  /** Whether the entity's answers carry the column. */
  reads(column: ColumnMapping): SchemaReading;
  /** Whether a body may write the column. */
  writes(column: ColumnMapping): boolean;
  /** Whether the audience may perform the operation at all (an entity without a policy: always). */
  grants(operation: PolicyOperation): boolean;
}

/** The audience of every caller: a member that a policy may hide is carried sometimes, and may be written (by some). */
function everyone(mapping: EntityMapping): SchemaAudience {
  const ruled = new Set(
    entityPolicyOf(mapping)
      ?.members.filter((rule) => rule.read !== undefined)
      .map((rule) => rule.column) ?? [],
  );
  return {
    reads: (column) => (!isSerialized(column) ? "never" : ruled.has(column) ? "sometimes" : "always"),
    writes: (column) => isDeserialized(column),
    grants: () => true,
  };
}

/** The audience of one caller's role: what its policy lets it read, write and do (the JSON rules still apply). */
function callerAudience(policy: CallerPolicy): SchemaAudience {
  return {
    reads: (column) => (!isSerialized(column) || policy.hidden.has(column) ? "never" : policy.readsAlways(column) ? "always" : "sometimes"),
    writes: (column) => isDeserialized(column) && !policy.notWritable.has(column),
    grants: (operation) => policy.grants(operation),
  };
}

/** The audience of a document for `role` (undefined: every caller) on one entity. */
export function audienceOf(mapping: EntityMapping, role: PolicyCaller | undefined): SchemaAudience {
  const declared = mapping.hasPolicy ? entityPolicyOf(mapping) : undefined;
  if (declared === undefined) return everyone(mapping);
  return role === undefined ? everyone(mapping) : callerAudience(new CallerPolicy(declared, role));
}

/** The policies of a document's `role` as a session would apply them to that caller (undefined: no role). */
export function roleLookup(role: PolicyCaller | undefined): PolicyLookup | undefined {
  if (role === undefined) return undefined;
  return {
    callerPolicy: (mapping) => {
      const declared = mapping.hasPolicy ? entityPolicyOf(mapping) : undefined;
      return declared === undefined ? undefined : new CallerPolicy(declared, role);
    },
  };
}

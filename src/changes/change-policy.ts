import { MappingError } from "../errors.js";
import { conditionHolds } from "../filter/condition-match.js";
import { isSerialized, jsonPropertyName } from "../json/json-visibility.js";
import { type ColumnMapping, type EntityMapping, registerMappingCheck } from "../mapping/entity-mapping.js";
import { MappingMessages } from "../mapping/mapping-messages.js";
import type { CallerPolicy } from "../policy/caller-policy.js";
import { entityPolicyOf } from "../policy/entity-policy.js";
import { PolicyMessages } from "../policy/policy-messages.js";
import { changeData, changeValues } from "./change-filter.js";
import { changeRecordJson, type StoredChange } from "./change-record.js";

/** Whether the change records of an entity with `@ChangeFeed` carry the column's value (their `data`). */
function carried(mapping: EntityMapping, column: ColumnMapping): boolean {
  if (column.isJoined || !isSerialized(column)) return false;
  const members = mapping.changeFeed?.members;
  return members === undefined || column.isPrimaryKey || members.includes(column.property);
}

// The change feed applies an entity's policy to its records, not to rows: every member the policy's conditions name
// must be in the records, or the entity is refused when it is mapped.
registerMappingCheck((mapping) => {
  if (!mapping.hasPolicy || mapping.changeFeed === undefined) return;
  const policy = entityPolicyOf(mapping);
  for (const column of policy?.conditionColumns ?? []) {
    if (!carried(mapping, column))
      throw new MappingError(MappingMessages.invalidEntity(mapping.name, PolicyMessages.changeFeedMember("the policy", column.property)));
  }
});

/** The records of each change as its callers may see it, by view (the names of the members left out; '' for none). */
const views = new WeakMap<StoredChange, Map<string, string>>();

/**
 * The record of a change as a caller under `policy` may receive it (the text of its `data:` line), or undefined when
 * the caller may not: the change's row (as the record carries it; a delete's as it was deleted) must be one the
 * policy grants the caller for `changes`, and the members the caller may not read on that row are left out of `data`.
 * Made once per change and view: callers who may see the same members get the same text.
 */
export function changeRecordFor(change: StoredChange, policy: CallerPolicy): string | undefined {
  const rows = policy.rows("changes");
  const values = changeValues(change);
  if (rows !== undefined && (values === undefined || !conditionHolds(rows, values))) return undefined;
  let names: string[] = [];
  if (values !== undefined && change.action !== "delete")
    for (const column of policy.hiddenOn(values)) names.push(jsonPropertyName(column));
  if (names.length > 1) names = [...new Set(names)].sort();
  const view = names.join(",");
  let byView = views.get(change);
  if (byView === undefined) views.set(change, (byView = new Map()));
  let record = byView.get(view);
  if (record === undefined) {
    if (names.length === 0) record = changeRecordJson(change);
    else {
      const visible = { ...(changeData(change) as Record<string, unknown>) };
      for (const name of names) delete visible[name];
      record = changeRecordJson(change, JSON.stringify(visible));
    }
    byView.set(view, record);
  }
  return record;
}

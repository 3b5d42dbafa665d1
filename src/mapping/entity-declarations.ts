import { ColumnMapping } from "./column-mapping.js";
import type { ColumnDeclaration, DetailColumnDeclaration } from "./column-decorators.js";
import type { JoinDeclaration, RelationDeclaration, WhereClauseConstant } from "./entity-decorators.js";
import { auditRoles, MappingKey, type AuditRole } from "./mapping-keys.js";
import type { RawEntity, RawMember } from "./metadata-store.js";

/** A named constant parameter of the entity's `@WhereClause`. */
export interface WhereClauseParameterMapping {
  /** The name used as `:name` in the clause. */
  readonly name: string;
  /** The constant. */
  readonly value: WhereClauseConstant;
}

/** The records of `key`, typed as the decorator of that key writes them. */
function recordsOf<V>(annotations: ReadonlyMap<symbol, readonly unknown[]>, key: symbol): readonly V[] {
  return (annotations.get(key) ?? []) as readonly V[];
}

/**
 * What the decorators declare about one member, read and not yet checked: its `@Column` and `@DetailColumn`
 * records (more than one of either is refused), its change-tracking roles, whether it carries a marker that
 * needs a column (key, version, tenant, not-filterable or a role), and the column its first `@Column` maps
 * when it has no `@DetailColumn`. @internal
 */
export type MemberDeclarations = ReturnType<typeof readMember>;

/**
 * What the decorators of an entity class declare, read as they are: nothing is checked here (that is
 * `checkMappingRules`), so a list may hold more than the one entry a rule allows. @internal
 */
export type EntityDeclarations = ReturnType<typeof readEntityDeclarations>;

function readMember(member: RawMember) {
  const annotations = member.annotations;
  const columns = recordsOf<ColumnDeclaration>(annotations, MappingKey.column);
  const details = recordsOf<DetailColumnDeclaration>(annotations, MappingKey.detailColumn);
  const roles = auditRoles.filter((role) => annotations.has(MappingKey[role]));
  const isMarked =
    annotations.has(MappingKey.primaryKey) ||
    annotations.has(MappingKey.versionColumn) ||
    annotations.has(MappingKey.tenantColumn) ||
    annotations.has(MappingKey.notFilterable) ||
    roles.length > 0;
  const column = columns.length > 0 && details.length === 0 ? new ColumnMapping(member, columns[0], roles[0]) : undefined;
  return { member, columns, details, roles, isMarked, column } as const;
}

/** Reads the decorators of an entity class into `EntityDeclarations`, without checking them. @internal */
export function readEntityDeclarations(raw: RawEntity) {
  const members = [...raw.members.values()].map(readMember);
  const columns = members.flatMap((member) => member.column ?? []);
  const audit: Partial<Record<AuditRole, ColumnMapping>> = {};
  for (const column of columns) if (column.auditRole !== undefined) audit[column.auditRole] ??= column;
  const own = columns.filter((column) => column.alias === undefined);
  return {
    tables: recordsOf<string>(raw.annotations, MappingKey.table),
    sequences: recordsOf<string>(raw.annotations, MappingKey.sequence),
    whereClauses: recordsOf<string>(raw.annotations, MappingKey.whereClause),
    whereClauseParameters: recordsOf<WhereClauseParameterMapping>(raw.annotations, MappingKey.whereClauseParameter),
    relations: recordsOf<RelationDeclaration>(raw.annotations, MappingKey.relation),
    // Class decorators run bottom-up: reverse them so the joins keep the order they are written in.
    joins: [...recordsOf<JoinDeclaration>(raw.annotations, MappingKey.join)].reverse(),
    // Every decorated member and every column (own and joined), in declaration order.
    members,
    columns,
    keys: columns.filter((column) => column.isPrimaryKey),
    versions: columns.filter((column) => column.isVersion),
    // The tenant columns of the entity's own table, and those of joined tables.
    ownTenants: own.filter((column) => column.isTenant),
    joinedTenants: columns.filter((column) => column.isTenant && column.alias !== undefined),
    // The first column of each change-tracking role.
    audit: audit as Readonly<Partial<Record<AuditRole, ColumnMapping>>>,
    // Each `@DetailColumn` field with the column of the entity's own table that it names (undefined: none).
    details: members.flatMap(({ member, details }) => {
      if (details.length === 0) return [];
      const declaration = details[0];
      const local = declaration.localColumn.toLowerCase();
      return [{ member, declaration, localColumn: own.find((column) => column.columnName.toLowerCase() === local) }];
    }),
  };
}

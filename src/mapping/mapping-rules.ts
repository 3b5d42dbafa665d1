import { MappingError } from "../errors.js";
import type { ColumnMapping } from "./column-mapping.js";
import type { EntityDeclarations, MemberDeclarations } from "./entity-declarations.js";
import { MappingKey, type AuditRole } from "./mapping-keys.js";
import { MappingMessages } from "./mapping-messages.js";

/**
 * Checks every mapping rule that needs no database on what an entity's decorators declare, and throws
 * `MappingError` (`<entity>: <problem>`) at the first one broken. The order is fixed, so one class always
 * gets the same message: the class-level decorators, then each member in declaration order, then the rules
 * of the entity as a whole, then the detail collections. @internal
 */
export function checkMappingRules(entity: string, declared: EntityDeclarations): void {
  const fail = (problem: string): never => {
    throw new MappingError(MappingMessages.invalidEntity(entity, problem));
  };
  const aliases = checkClassRules(declared, fail);
  const roles = new Set<AuditRole>();
  for (const member of declared.members) checkMemberRules(member, aliases, roles, fail);
  checkEntityRules(declared, fail);
}

type Fail = (problem: string) => never;

/** `@Table`, `@Sequence`, `@WhereClause` and its parameters, `@Join`; answers the join aliases, lower-cased. */
function checkClassRules(declared: EntityDeclarations, fail: Fail): ReadonlySet<string> {
  if (declared.tables.length === 0) fail(MappingMessages.noTable);
  if (declared.tables.length > 1) fail(MappingMessages.appliedTwice("Table"));
  if (declared.sequences.length > 1) fail(MappingMessages.appliedTwice("Sequence"));
  if (declared.whereClauses.length > 1) fail(MappingMessages.appliedTwice("WhereClause"));
  for (const parameter of declared.whereClauseParameters) {
    if (!isWhereClauseConstant(parameter.value)) fail(MappingMessages.whereClauseParameterType(parameter.name, describe(parameter.value)));
  }
  if (declared.whereClauseParameters.length > 0 && declared.whereClauses.length === 0) fail(MappingMessages.whereClauseParameterAlone);
  const table = declared.tables[0].toLowerCase();
  const aliases = new Set<string>();
  for (const join of declared.joins) {
    const alias = join.alias.toLowerCase();
    if (aliases.has(alias)) fail(MappingMessages.duplicateJoinAlias(join.alias));
    const source = join.sourceTableOrAlias?.toLowerCase();
    if (source !== undefined && !aliases.has(source) && source !== table)
      fail(MappingMessages.joinChainUnknown(join.alias, join.sourceTableOrAlias ?? ""));
    aliases.add(alias);
  }
  return aliases;
}

/** The rules of one member: each decorator once, fields only, a column or a detail list but not both. */
function checkMemberRules(declared: MemberDeclarations, aliases: ReadonlySet<string>, roles: Set<AuditRole>, fail: Fail): void {
  const { member, columns, details, isMarked } = declared;
  const field = member.name;
  for (const key of Object.values(MappingKey)) {
    if ((member.annotations.get(key)?.length ?? 0) > 1)
      fail(MappingMessages.memberAppliedTwice(field, key.description?.replace("tenon.", "") ?? ""));
  }
  if (declared.roles.length > 1) fail(MappingMessages.severalAuditRoles(field, declared.roles.join(", ")));
  if (member.kind !== "field" && (columns.length > 0 || details.length > 0 || isMarked)) fail(MappingMessages.decoratorOnNonField(field));
  if (member.isStatic && (columns.length > 0 || details.length > 0)) fail(MappingMessages.staticField(field));
  if (details.length > 0) {
    if (columns.length > 0) fail(MappingMessages.columnAndDetail(field));
    if (isMarked) fail(MappingMessages.detailWithOthers(field));
    return;
  }
  if (declared.column === undefined) {
    if (isMarked) fail(MappingMessages.markedWithoutColumn(field));
    return;
  }
  checkColumnRules(field, declared.column, aliases, roles, fail);
}

/** The rules of one mapped column: its join alias, and the types its key, version, tenant or role needs. */
function checkColumnRules(field: string, column: ColumnMapping, aliases: ReadonlySet<string>, roles: Set<AuditRole>, fail: Fail): void {
  const { type, alias } = column;
  const role = column.auditRole;
  const plainInt32 = type.kind === "int32" && !type.nullable;
  if (alias !== undefined && !aliases.has(alias.toLowerCase())) fail(MappingMessages.unknownJoinAlias(field, alias, column.columnName));
  if (column.isPrimaryKey && !plainInt32) fail(MappingMessages.primaryKeyType(field));
  if (column.isVersion && !plainInt32) fail(MappingMessages.versionType(field));
  if (column.isPrimaryKey && column.isVersion) fail(MappingMessages.keyIsVersion(field));
  if (column.isTenant && (type.kind !== "string" || type.nullable || column.isPrimaryKey || column.isVersion || role !== undefined))
    fail(MappingMessages.tenantType(field));
  if ((column.isPrimaryKey || column.isVersion || role !== undefined) && alias !== undefined)
    fail(MappingMessages.joinedSpecialColumn(field));
  if (role === undefined) return;
  if (role.endsWith("At") && (type.kind !== "date" || !type.nullable))
    fail(MappingMessages.auditDateType(field, capitalize(role), `${type.kind}${type.nullable ? " or null" : ""}`));
  if (role.endsWith("By") && type.kind !== "string") fail(MappingMessages.auditUserType(field, capitalize(role), type.kind));
  if (roles.has(role)) fail(MappingMessages.appliedTwice(capitalize(role)));
  roles.add(role);
}

/** One key, at most one version and one own tenant, `@DeletedBy` with `@DeletedAt`, each column once, details on own columns. */
function checkEntityRules(declared: EntityDeclarations, fail: Fail): void {
  const { keys, versions, ownTenants, joinedTenants, audit } = declared;
  if (keys.length === 0) fail(MappingMessages.noPrimaryKey);
  if (keys.length > 1) fail(MappingMessages.severalPrimaryKeys(keys.length, keys.map((key) => key.property).join(", ")));
  if (versions.length > 1) fail(MappingMessages.appliedTwice("VersionColumn"));
  if (audit.deletedBy !== undefined && audit.deletedAt === undefined) fail(MappingMessages.deletedByWithoutDeletedAt);
  if (ownTenants.length > 1) fail(MappingMessages.appliedTwice("TenantColumn"));
  if (joinedTenants.length > 0 && ownTenants.length === 0) fail(MappingMessages.joinedTenantAlone(joinedTenants[0].property));
  const seen = new Map<string, ColumnMapping>();
  for (const column of declared.columns) {
    const key = `${column.alias?.toLowerCase() ?? ""}.${column.columnName.toLowerCase()}`;
    const earlier = seen.get(key);
    if (earlier !== undefined) fail(MappingMessages.sameColumnTwice(earlier.property, column.property, column.columnName));
    seen.set(key, column);
  }
  for (const { member, declaration, localColumn } of declared.details) {
    if (localColumn === undefined) fail(MappingMessages.detailColumnUnknown(member.name, declaration.localColumn));
  }
}

function isWhereClauseConstant(value: unknown): boolean {
  switch (typeof value) {
    case "string":
    case "bigint":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value);
    default:
      return value instanceof Date && !Number.isNaN(value.getTime());
  }
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "object") return (value as object).constructor?.name ?? "object";
  return typeof value;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

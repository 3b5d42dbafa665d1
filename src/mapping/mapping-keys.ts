/** The annotation keys of the mapping decorators (see metadata-store.ts). @internal */
export const MappingKey = {
  table: Symbol("tenon.Table"),
  sequence: Symbol("tenon.Sequence"),
  relation: Symbol("tenon.Relation"),
  whereClause: Symbol("tenon.WhereClause"),
  whereClauseParameter: Symbol("tenon.WhereClauseParameter"),
  join: Symbol("tenon.Join"),
  primaryKey: Symbol("tenon.PrimaryKey"),
  column: Symbol("tenon.Column"),
  detailColumn: Symbol("tenon.DetailColumn"),
  versionColumn: Symbol("tenon.VersionColumn"),
  tenantColumn: Symbol("tenon.TenantColumn"),
  notFilterable: Symbol("tenon.NotFilterable"),
  createdAt: Symbol("tenon.CreatedAt"),
  createdBy: Symbol("tenon.CreatedBy"),
  updatedAt: Symbol("tenon.UpdatedAt"),
  updatedBy: Symbol("tenon.UpdatedBy"),
  deletedAt: Symbol("tenon.DeletedAt"),
  deletedBy: Symbol("tenon.DeletedBy"),
} as const;

/** The annotation key of `@ChangeFeed`, a class decorator kept apart from the member keys above. @internal */
export const changeFeedKey = Symbol("tenon.ChangeFeed");

/** The annotation key of `@Policy` (docs/policies.md), a class decorator of the policy layer. @internal */
export const policyKey = Symbol("tenon.Policy");

/** The six change-tracking roles. */
export type AuditRole = "createdAt" | "createdBy" | "updatedAt" | "updatedBy" | "deletedAt" | "deletedBy";

/** The change-tracking roles in a fixed order. */
export const auditRoles: readonly AuditRole[] = ["createdAt", "createdBy", "updatedAt", "updatedBy", "deletedAt", "deletedBy"];

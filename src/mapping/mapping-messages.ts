/**
 * Every text of the mapping layer, in one place: the `MappingError`s of an invalid entity (each prefixed with
 * the entity's name by the mapper), and the errors of decorators and lazy references.
 */
export const MappingMessages = {
  invalidEntity: (entity: string, problem: string) => `${entity}: ${problem}`,
  noTable: "the class has no @Table; every entity needs one.",
  appliedTwice: (decorator: string) => `@${decorator} is applied more than once.`,
  changeFeedOnJoin: "@ChangeFeed is applied to a join entity, which is read-only and never changes.",
  changeFeedUnknownMember: (member: string) => `@ChangeFeed names the member "${member}", which is no column of the entity's own table.`,
  whereClauseParameterType: (name: string, type: string) =>
    `@WhereClauseParameter("${name}") has a value of a refused type (${type}); only string, integer, int64 (bigint), double, boolean and Date constants are accepted.`,
  whereClauseParameterAlone: "@WhereClauseParameter is applied without a @WhereClause.",
  duplicateJoinAlias: (alias: string) => `two @Join use the alias "${alias}"; give each join of the same table its own alias.`,
  joinChainUnknown: (alias: string, source: string) =>
    `@Join "${alias}" chains from "${source}", which is not the entity's table or an earlier join.`,
  memberAppliedTwice: (field: string, decorator: string) => `field ${field}: @${decorator} is applied more than once.`,
  severalAuditRoles: (field: string, roles: string) => `field ${field}: carries more than one change-tracking decorator (${roles}).`,
  decoratorOnNonField: (member: string) => `${member}: mapping decorators apply to fields only.`,
  staticField: (field: string) => `field ${field}: a static field cannot be mapped.`,
  columnAndDetail: (field: string) => `field ${field}: a field cannot carry both @Column and @DetailColumn.`,
  detailWithOthers: (field: string) => `field ${field}: a @DetailColumn field cannot carry other mapping decorators.`,
  markedWithoutColumn: (field: string) => `field ${field}: has a mapping decorator but no @Column.`,
  unknownJoinAlias: (field: string, alias: string, column: string) =>
    `field ${field}: @Column("${alias}", "${column}") names the alias "${alias}", which matches no @Join.`,
  primaryKeyType: (field: string) => `field ${field}: the primary key must be declared Type.int32 (not null).`,
  versionType: (field: string) => `field ${field}: the version column must be declared Type.int32 (not null).`,
  keyIsVersion: (field: string) => `field ${field}: the primary key cannot also be the version column.`,
  tenantType: (field: string) =>
    `field ${field}: @TenantColumn needs a string column that cannot be null and is not the key, the version or a change-tracking column.`,
  joinedTenantAlone: (field: string) =>
    `field ${field}: a @TenantColumn of a joined table needs a @TenantColumn of the entity's own table, whose tenant it must have.`,
  joinedSpecialColumn: (field: string) => `field ${field}: a joined column cannot be a key, version or change-tracking column.`,
  auditDateType: (field: string, decorator: string, type: string) =>
    `field ${field}: @${decorator} needs a nullable date column (Type.date.orNull), not ${type}.`,
  auditUserType: (field: string, decorator: string, type: string) => `field ${field}: @${decorator} needs a string column, not ${type}.`,
  noPrimaryKey: "the class has no @PrimaryKey; every entity needs exactly one.",
  severalPrimaryKeys: (count: number, fields: string) =>
    `@PrimaryKey is applied to ${count} fields (${fields}); an entity has exactly one.`,
  deletedByWithoutDeletedAt: "@DeletedBy requires @DeletedAt on the same entity.",
  sameColumnTwice: (first: string, second: string, column: string) => `fields ${first} and ${second} map the same column ${column}.`,
  detailColumnUnknown: (field: string, column: string) => `field ${field}: @DetailColumn("${column}", ...) names no column of this entity.`,
  notAnEntity: (entity: string) => `${entity}: the class is not an entity; it has no @Table and no mapped fields.`,
  memberNameNotString: (name: string) => `Tenon decorators apply to members with string names, not ${name}.`,
  columnWithoutType: (column: string) => `@Column("${column}") needs a column type, e.g. Type.string.`,
  aggregateGroupType: (field: string, kind: string) => `field ${field}: @Aggregatable({ groupBy: true }) cannot group by a ${kind} column.`,
  aggregateUnknownFunction: (field: string, fn: string) =>
    `field ${field}: @Aggregatable names the function "${fn}"; use count, countDistinct, sum, avg, min or max.`,
  aggregateMetricType: (field: string, fn: string, kind: string) =>
    `field ${field}: @Aggregatable allows ${fn}, which a ${kind} column cannot take.`,
  lazyNotAttached: (id: number | null) => `Lazy reference ${id} is not attached to a context; load its owner through a Context first.`,
  lazySetDetached: "Lazy.set(entity) needs a reference attached to a context; assign `id` instead.",
  lazyListNotLoaded: "LazyList is not loaded; await load() first.",
} as const;

/**
 * `tenon`: entity mapping, the ORM session, JSON, validation and events.
 * @packageDocumentation
 */
export * from "./errors.js";
export { Type, ColumnType, type ColumnKind, type EntityClass, type ConcreteEntityClass } from "./mapping/column-type.js";
export { Lazy, LazyList } from "./mapping/lazy.js";
export {
  Table,
  Sequence,
  Relation,
  WhereClause,
  WhereClauseParameter,
  Join,
  JoinKind,
  type EntityDecorator,
  type RelationDeclaration,
  type JoinDeclaration,
  type WhereClauseConstant,
} from "./mapping/entity-decorators.js";
export {
  Column,
  DetailColumn,
  PrimaryKey,
  VersionColumn,
  TenantColumn,
  NotFilterable,
  type FieldDecorator,
  type ColumnDeclaration,
  type DetailColumnDeclaration,
} from "./mapping/column-decorators.js";
export { CreatedAt, CreatedBy, UpdatedAt, UpdatedBy, DeletedAt, DeletedBy } from "./mapping/audit-decorators.js";
export { EntityMapping, ColumnMapping, DetailMapping, type WhereClauseParameterMapping } from "./mapping/entity-mapping.js";
export type { AuditRole } from "./mapping/mapping-keys.js";
export type { Dialect } from "./sql/dialect.js";
export type { SchemaDialect, SchemaLimits, SequenceOptions, CatalogQuery } from "./sql/schema-dialect.js";
export type { Catalog, CatalogTable, CatalogColumn } from "./sql/catalog.js";
export { Schema, type SchemaOptions } from "./schema/schema.js";
export { SchemaDiff, SchemaScript } from "./schema/schema-diff.js";
export type {
  Connection,
  Database,
  PoolSnapshot,
  ReadRouting,
  ReadTarget,
  ReplicaFigures,
  RowCursor,
} from "./engines/database.js";
export { Filter } from "./filter/filter.js";
export type { Condition, ComparisonOperator, OrderByItem } from "./filter/condition.js";
export { Context } from "./session/context.js";
export { EntityCursor, type EntityCursorOptions } from "./session/entity-cursor.js";
export { AggregateCursor } from "./session/aggregate-cursor.js";
export type { AggregateResult, AggregateRow, AggregateValue } from "./session/session-aggregates.js";
export type { CountMode, RowCount } from "./session/session-counts.js";
export {
  type AggregateQuery,
  type AggregateGroup,
  type AggregateMetric,
  type AggregateTerm,
  type AggregateOrderItem,
  type HavingCondition,
  type MetricValueType,
  type DateTruncation,
  dateTruncations,
  metricValueType,
  averageExtraScale,
} from "./filter/aggregate-query.js";
export type { AggregateSpec, AggregateGroupSpec, AggregateMetricSpec, AggregateHavingSpec } from "./filter/aggregate-spec.js";
export {
  Aggregatable,
  aggregateFunctions,
  type AggregateFunction,
  type AggregatableOptions,
} from "./mapping/aggregate-decorator.js";
export type { GetOptions, TransactionOptions } from "./session/session-options.js";
export { changeFeedRetryPolicy, defaultRetryPolicy, type RetryOption, type RetryPolicy } from "./session/retry-policy.js";

/** An int32 primary key. */
export type PrimaryKey = number;
/** An int32 optimistic-locking version. */
export type Version = number;
export { JsonContext } from "./json/json-context.js";
export { JsonSerializerConfig } from "./json/json-serializer-config.js";
export { JsonIgnore, JsonIgnoreSerialize, JsonIgnoreDeserialize, JsonName, type JsonFieldDecorator } from "./json/json-decorators.js";
export { isSerialized, isDeserialized, isFilterable, jsonPropertyName, type JsonMember } from "./json/json-visibility.js";
export { decodeColumnJson } from "./json/column-json.js";
export { parseIsoDate } from "./values/iso-date.js";
export type { JsonValue, JsonObject } from "./json/json-value.js";
export {
  Required,
  MaxLength,
  MinLength,
  MaxValue,
  MinValue,
  Greater,
  Less,
  Range,
  Regex,
  Email,
  DisplayName,
  Validator,
  type NumericLimit,
  type ValidationDecorator,
} from "./validation/validation-decorators.js";
export { ValidationErrors } from "./validation/validation-errors.js";
export { isValidEmailAddress } from "./validation/email-address.js";
export { textLength } from "./validation/text-length.js";
export {
  InsertEvent,
  UpdateEvent,
  DeleteEvent,
  BeforeInsert,
  AfterInsert,
  BeforeUpdate,
  AfterUpdate,
  BeforeDelete,
  AfterDelete,
  type EntityEvent,
  type EntityEventClass,
  type EventClassDecorator,
  type EntityEventMethodDecorator,
} from "./events/event-decorators.js";
export { FilterBuilder, ConditionGroup, ColumnCondition, type FilterProperty, type FilterValue } from "./filter/filter-builder.js";
export { ChangeFeed, type ChangeFeedOptions } from "./mapping/change-feed-decorator.js";
export {
  Policy,
  type PolicyDeclaration,
  type PolicyDecorator,
  type PolicyRule,
  type PolicyAudience,
  type PolicyMember,
  type MemberPolicy,
  type MemberGrant,
  type MemberValues,
  type RowCondition,
  type MemberTest,
  type MemberOperand,
  type ComparedValue,
} from "./policy/policy-declaration.js";
export { type PolicyOperation, policyOperations } from "./policy/policy-operation.js";
export { ClaimType, ClaimsDeclaration, declareClaims, type ClaimsOf, type ClaimsRecord, type ClaimTypes } from "./policy/claims.js";
export type { PolicyCaller, CallerValue, CallerReferences } from "./policy/caller.js";
export type { ChangeRecord, StoredChange, ChangeAction } from "./changes/change-record.js";
export { ChangeLog, type ChangeQuery, type ChangeBounds, type ChangePurge } from "./changes/change-log.js";
export {
  ChangeHub,
  type ChangeHubOptions,
  type ChangeReceiver,
  type ChangeSelection,
  type ChangeWakeUpSource,
} from "./changes/change-hub.js";
export { ChangeWebhooks, type ChangeWebhooksOptions, type DeadLetterQuery } from "./changes/change-webhooks.js";
export type { WebhookSubscription } from "./changes/webhook-subscription.js";
export type { WebhookDeadLetter } from "./changes/webhook-store.js";
export { WebhookSignature, type WebhookSignedHeaders } from "./changes/webhook-signature.js";
export {
  useRedisChangeWakeUp,
  type RedisChangeWakeUpOptions,
  type RedisPublishClient,
  type RedisSubscribeClient,
} from "./changes/redis-wake-up.js";
// Installs the change feed's recorder in the session: every entity with @ChangeFeed writes its records.
import "./changes/change-writer.js";

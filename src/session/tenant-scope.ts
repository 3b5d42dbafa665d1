import { TenantRequiredError, ValidationError, type ValidationFailure } from "../errors.js";
import type { EntityClass } from "../mapping/column-type.js";
import { EntityMapping } from "../mapping/entity-mapping.js";
import { Lazy } from "../mapping/lazy.js";
import { wireNameOf } from "../mapping/wire-name.js";
import { SessionMessages } from "./session-messages.js";
import type { Dialect } from "../sql/dialect.js";
import { type EntityStatements, statementsOf, unscopedStatementsOf } from "../sql/entity-statements.js";

/** What decides a session's tenant (`Context` is one): its resolver, or the explicit choice to see every tenant. */
export interface TenantSource {
  /** True for a session that reads and writes every tenant's rows (administration, seeding). */
  readonly unscoped: boolean;
  /** The tenant of the session's caller; undefined or '' when there is none. */
  readonly onGetCurrentTenant: (() => string | undefined) | undefined;
}

/**
 * The statements a session runs for `mapping`: the scoped ones, or for an unscoped session the ones without the
 * tenant's condition. For an entity without a `@TenantColumn` this is `statementsOf` after one property test.
 */
export function sessionStatements(source: TenantSource, mapping: EntityMapping, dialect: Dialect): EntityStatements {
  if (mapping.tenantColumn === undefined || !source.unscoped) return statementsOf(mapping, dialect);
  return unscopedStatementsOf(mapping, dialect);
}

/**
 * The tenant a session binds for `mapping`: undefined for an entity without a `@TenantColumn` and for an
 * unscoped session; otherwise the resolver's answer, and `TenantRequiredError` when it has none.
 */
export function sessionTenant(source: TenantSource, mapping: EntityMapping): string | undefined {
  if (mapping.tenantColumn === undefined || source.unscoped) return undefined;
  const tenant = source.onGetCurrentTenant?.();
  if (tenant === undefined || tenant === "") throw new TenantRequiredError(mapping.name);
  return tenant;
}

/** Appends the tenant (when there is one) as the last parameter of a statement: where the scoped statements expect it. */
export function withTenant(parameters: unknown[], tenant: string | undefined): unknown[] {
  if (tenant !== undefined) parameters.push(tenant);
  return parameters;
}

/**
 * In a tenant's session, every reference of a scoped entity to a scoped entity must name a row of the tenant:
 * one that reads as absent (another tenant's, or none) is a `ValidationError` naming the property, the answer of
 * a missing row, so that a write can neither point at another tenant's row nor tell whether it exists. Nothing
 * is read for an entity without a `@TenantColumn` or in an unscoped session.
 */
export async function checkTenantReferences(
  session: TenantSource & { tryGet(entityClass: EntityClass, id: number): Promise<object | null> },
  mapping: EntityMapping,
  entity: object,
): Promise<void> {
  if (sessionTenant(session, mapping) === undefined) return;
  const failures: ValidationFailure[] = [];
  for (const column of mapping.ownColumns) {
    const target = column.type.kind === "lazy" ? column.type.target?.() : undefined;
    if (target === undefined || EntityMapping.of(target).tenantColumn === undefined) continue;
    const reference = column.get(entity);
    const id = reference instanceof Lazy ? reference.id : null;
    if (id === null || (await session.tryGet(target, id)) !== null) continue;
    failures.push({ property: wireNameOf(column), column: column.columnName, message: SessionMessages.referenceAbsent(target.name, id) });
  }
  if (failures.length > 0) throw new ValidationError(failures);
}

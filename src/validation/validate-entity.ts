import { ValidationError } from "../errors.js";
import type { EntityMapping } from "../mapping/entity-mapping.js";
import { ValidationErrors } from "./validation-errors.js";
import { type ValidationPlan, validationPlanOf } from "./validation-plan.js";

/**
 * Checks every validation rule of `entity`: the field rules, then each `@Validator` method
 * called as `method(errors, context)` and awaited. Throws one `ValidationError` listing every failure;
 * the session calls it inside the write's transaction, after the before-events and before the statement.
 * Without `@Validator` methods the check is synchronous and answers undefined (a write pays no extra await).
 */
export function validateEntity(mapping: EntityMapping, entity: object, context: unknown): Promise<void> | undefined {
  const plan = validationPlanOf(mapping);
  if (plan.validators.length === 0) {
    // Nothing allocated when every value passes.
    const failures = plan.failuresOf(entity);
    if (failures !== undefined) throw new ValidationError(failures);
    return undefined;
  }
  const errors = new ValidationErrors(mapping);
  plan.checkColumns(entity, errors);
  return runValidators(plan.validators, entity, errors, context);
}

/** True when the entity has `@Validator` methods: application code that may read the database during a write. */
export function hasValidatorMethods(mapping: EntityMapping): boolean {
  return validationPlanOf(mapping).validators.length > 0;
}

async function runValidators(
  validators: ValidationPlan["validators"],
  entity: object,
  errors: ValidationErrors,
  context: unknown,
): Promise<void> {
  for (const read of validators) await read(entity).call(entity, errors, context);
  if (errors.hasErrors) throw new ValidationError(errors.failures);
}

import { ValidationError } from "../errors.js";
import type { EntityMapping } from "../mapping/entity-mapping.js";
import { ValidationErrors } from "./validation-errors.js";
import { validationPlanOf } from "./validation-plan.js";

/**
 * Checks every validation rule of `entity` (SPEC.md 2.10): the field rules, then each `@Validator` method
 * called as `method(errors, context)` and awaited. Throws one `ValidationError` listing every failure;
 * the session calls it inside the write's transaction, after the before-events and before the statement.
 */
export async function validateEntity(mapping: EntityMapping, entity: object, context: unknown): Promise<void> {
  const plan = validationPlanOf(mapping);
  if (plan.columns.length === 0 && plan.validators.length === 0) return;
  const errors = new ValidationErrors(mapping);
  plan.checkColumns(entity, errors);
  for (const read of plan.validators) await read(entity).call(entity, errors, context);
  if (errors.hasErrors) throw new ValidationError(errors.failures);
}

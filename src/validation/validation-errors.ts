import { TenonError, type ValidationFailure } from "../errors.js";
import type { EntityMapping } from "../mapping/entity-mapping.js";
import { wireNameOf } from "../mapping/wire-name.js";
import { ValidationMessages } from "./validation-messages.js";

/**
 * The failures collected while one entity is validated; a `@Validator` method receives it and adds its own.
 * When validation ends with any failure, the write is refused with one `ValidationError` listing them all.
 */
export class ValidationErrors {
  readonly #mapping: EntityMapping;
  readonly #failures: ValidationFailure[] = [];

  /** @internal */
  constructor(mapping: EntityMapping) {
    this.#mapping = mapping;
  }

  /**
   * Adds a failure of `property` (a mapped column or detail by its field name, without `#`; the failure
   * reports its wire name, see `@JsonName`); `null` reports a failure of the
   * entity as a whole (property and column are then empty). Naming anything else throws `TenonError`.
   */
  add(property: string | null, message: string): void {
    if (property === null) {
      this.#failures.push({ property: "", column: "", message });
      return;
    }
    const column = this.#mapping.column(property);
    if (column !== undefined) {
      this.#failures.push({ property: wireNameOf(column), column: column.columnName, message });
      return;
    }
    const detail = this.#mapping.details.find((candidate) => candidate.property === property);
    if (detail !== undefined) {
      this.#failures.push({ property: wireNameOf(detail), column: "", message });
      return;
    }
    throw new TenonError(ValidationMessages.unknownProperty(this.#mapping.name, property));
  }

  /** @internal a failure of a field rule. */
  push(failure: ValidationFailure): void {
    this.#failures.push(failure);
  }

  /** The failures so far, in the order found. */
  get failures(): readonly ValidationFailure[] {
    return this.#failures;
  }

  /** Whether any failure was found. */
  get hasErrors(): boolean {
    return this.#failures.length > 0;
  }
}

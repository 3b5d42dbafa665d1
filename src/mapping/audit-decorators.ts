import "./symbol-metadata.js";
import { annotateMember } from "./metadata-store.js";
import { MappingKey } from "./mapping-keys.js";

/** Set with the current time on insert. The field is a `Date | null`. */
export function CreatedAt<This>(_value: undefined, context: ClassFieldDecoratorContext<This, Date | null>): void {
  annotateMember(context, MappingKey.createdAt, true);
}

/** Set with the current user on insert. The field is a string. */
export function CreatedBy<This>(_value: undefined, context: ClassFieldDecoratorContext<This, string | null>): void {
  annotateMember(context, MappingKey.createdBy, true);
}

/** Set with the current time on update and undelete. The field is a `Date | null`. */
export function UpdatedAt<This>(_value: undefined, context: ClassFieldDecoratorContext<This, Date | null>): void {
  annotateMember(context, MappingKey.updatedAt, true);
}

/** Set with the current user on update and undelete. The field is a string. */
export function UpdatedBy<This>(_value: undefined, context: ClassFieldDecoratorContext<This, string | null>): void {
  annotateMember(context, MappingKey.updatedBy, true);
}

/** Set with the current time on delete; its presence makes delete a soft delete. The field is a `Date | null`. */
export function DeletedAt<This>(_value: undefined, context: ClassFieldDecoratorContext<This, Date | null>): void {
  annotateMember(context, MappingKey.deletedAt, true);
}

/** Set with the current user on delete. Requires `@DeletedAt` on the same entity. */
export function DeletedBy<This>(_value: undefined, context: ClassFieldDecoratorContext<This, string | null>): void {
  annotateMember(context, MappingKey.deletedBy, true);
}

import "../mapping/symbol-metadata.js";
import { annotateClass, annotateMember } from "../mapping/metadata-store.js";

/** The annotation keys of the event decorators (see metadata-store.ts). @internal */
export const EventKey = {
  insertEvent: Symbol("tenon.InsertEvent"),
  updateEvent: Symbol("tenon.UpdateEvent"),
  deleteEvent: Symbol("tenon.DeleteEvent"),
  beforeInsert: Symbol("tenon.BeforeInsert"),
  afterInsert: Symbol("tenon.AfterInsert"),
  beforeUpdate: Symbol("tenon.BeforeUpdate"),
  afterUpdate: Symbol("tenon.AfterUpdate"),
  beforeDelete: Symbol("tenon.BeforeDelete"),
  afterDelete: Symbol("tenon.AfterDelete"),
} as const;

/**
 * An event class named by `@InsertEvent`, `@UpdateEvent` or `@DeleteEvent`. Tenon constructs it with no
 * arguments once per write, calls `before` before validation and the statement and `after` after the
 * statement, on the same instance, inside the write's transaction. Either may be async; an exception (or a
 * rejected promise) rolls the write back. The context is the session doing the write (a `Context`,
 * `JsonContext` or `HttpContext`).
 */
export interface EntityEvent<T extends object = object> {
  /** Called before the statement (and before validation for insert and update). */
  before?(entity: T, context: unknown): void | Promise<void>;
  /** Called after the statement, still inside the transaction. */
  after?(entity: T, context: unknown): void | Promise<void>;
}

/** A class of entity events with a no-argument constructor. */
export type EntityEventClass<T extends object = object> = new () => EntityEvent<T>;

/** A class decorator naming an event class for one kind of write. */
export type EventClassDecorator<T extends object> = (value: abstract new () => T, context: ClassDecoratorContext) => void;

/** Runs an event class around every insert of the entity. */
export function InsertEvent<T extends object>(eventClass: EntityEventClass<T>): EventClassDecorator<T> {
  return (_value, context) => annotateClass(context, EventKey.insertEvent, eventClass);
}

/** Runs an event class around every update of the entity. */
export function UpdateEvent<T extends object>(eventClass: EntityEventClass<T>): EventClassDecorator<T> {
  return (_value, context) => annotateClass(context, EventKey.updateEvent, eventClass);
}

/** Runs an event class around every delete (soft or hard) of the entity. */
export function DeleteEvent<T extends object>(eventClass: EntityEventClass<T>): EventClassDecorator<T> {
  return (_value, context) => annotateClass(context, EventKey.deleteEvent, eventClass);
}

/**
 * A method decorator marking a public instance method of the entity as an event. The method is called as
 * `entity.method(context)` and may be async. A `#private` method is refused when the class is mapped.
 */
export type EntityEventMethodDecorator = <This>(
  method: (this: This, ...args: never[]) => unknown,
  context: ClassMethodDecoratorContext<This>,
) => void;

function marker(key: symbol): EntityEventMethodDecorator {
  return (_method, context) => annotateMember(context as ClassMethodDecoratorContext, key, true);
}

/** Called before every insert, before validation. */
export const BeforeInsert: EntityEventMethodDecorator = marker(EventKey.beforeInsert);
/** Called after every insert, inside its transaction. */
export const AfterInsert: EntityEventMethodDecorator = marker(EventKey.afterInsert);
/** Called before every update, before validation. */
export const BeforeUpdate: EntityEventMethodDecorator = marker(EventKey.beforeUpdate);
/** Called after every update, inside its transaction. */
export const AfterUpdate: EntityEventMethodDecorator = marker(EventKey.afterUpdate);
/** Called before every delete. */
export const BeforeDelete: EntityEventMethodDecorator = marker(EventKey.beforeDelete);
/** Called after every delete, inside its transaction. */
export const AfterDelete: EntityEventMethodDecorator = marker(EventKey.afterDelete);

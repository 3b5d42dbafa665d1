import { MappingError } from "../errors.js";
import { planPerMapping, type EntityMapping } from "../mapping/entity-mapping.js";
import type { RawMember } from "../mapping/metadata-store.js";
import { EventKey, type EntityEvent, type EntityEventClass } from "./event-decorators.js";
import { EventMessages } from "./event-messages.js";

/** The three kinds of write that have events. */
export type EntityEventKind = "insert" | "update" | "delete";

type EventMethod = (this: object, context: unknown) => unknown;

/** The events of one kind of write: the event class and the marked methods (readers of an instance's method). */
interface KindEvents {
  readonly eventClass: EntityEventClass | undefined;
  readonly before: readonly ((entity: object) => EventMethod)[];
  readonly after: readonly ((entity: object) => EventMethod)[];
}

const keys = {
  insert: { eventClass: EventKey.insertEvent, before: EventKey.beforeInsert, after: EventKey.afterInsert, name: "InsertEvent" },
  update: { eventClass: EventKey.updateEvent, before: EventKey.beforeUpdate, after: EventKey.afterUpdate, name: "UpdateEvent" },
  delete: { eventClass: EventKey.deleteEvent, before: EventKey.beforeDelete, after: EventKey.afterDelete, name: "DeleteEvent" },
} as const;

const methodKeys = new Map<symbol, string>([
  [EventKey.beforeInsert, "BeforeInsert"],
  [EventKey.afterInsert, "AfterInsert"],
  [EventKey.beforeUpdate, "BeforeUpdate"],
  [EventKey.afterUpdate, "AfterUpdate"],
  [EventKey.beforeDelete, "BeforeDelete"],
  [EventKey.afterDelete, "AfterDelete"],
]);

type EventsPlan = Readonly<Record<EntityEventKind, KindEvents>>;

function build(
  mapping: EntityMapping,
  members: ReadonlyMap<string, RawMember>,
  classAnnotations: ReadonlyMap<symbol, readonly unknown[]>,
): EventsPlan {
  for (const member of members.values()) {
    for (const [key, decorator] of methodKeys) {
      if (!member.annotations.has(key)) continue;
      if (member.isPrivate) throw new MappingError(EventMessages.privateMethod(mapping.name, member.name, decorator));
      if (member.kind !== "method" || member.isStatic)
        throw new MappingError(EventMessages.notMethod(mapping.name, member.name, decorator));
    }
  }
  const kind = (which: EntityEventKind): KindEvents => {
    const k = keys[which];
    const classes = (classAnnotations.get(k.eventClass) ?? []) as EntityEventClass[];
    if (classes.length > 1) throw new MappingError(EventMessages.duplicate(mapping.name, k.name));
    if (classes.length === 1 && typeof classes[0] !== "function") throw new MappingError(EventMessages.notAClass(mapping.name, k.name));
    const marked = (key: symbol): ((entity: object) => EventMethod)[] =>
      [...members.values()].filter((member) => member.annotations.has(key)).map((member) => member.get as (entity: object) => EventMethod);
    return { eventClass: classes[0], before: marked(k.before), after: marked(k.after) };
  };
  return { insert: kind("insert"), update: kind("update"), delete: kind("delete") };
}

// A marked #private method, or a marker on something that is not an instance method, is refused when the class is mapped.
const plans = planPerMapping((mapping, source) => build(mapping, source.members, source.annotations));

/** True when a write of `kind` has an event class or marked methods: code of the application that runs inside the write. */
export function hasEvents(kind: EntityEventKind, mapping: EntityMapping): boolean {
  const events = plans.of(mapping)[kind];
  return events.eventClass !== undefined || events.before.length > 0 || events.after.length > 0;
}

/** The event-class instance of each write in progress, per entity and kind, so that `after` runs on the instance `before` ran on. */
const pending = new WeakMap<object, { kind: EntityEventKind; event: EntityEvent }[]>();

/**
 * Runs the before-events of `kind` for `entity`: the event class's `before` (a new instance per write),
 * then each marked method in declaration order, each awaited. The session calls it first in the write's
 * transaction.
 */
export async function runBeforeEvents(kind: EntityEventKind, mapping: EntityMapping, entity: object, context: unknown): Promise<void> {
  const events = plans.of(mapping)[kind];
  if (events.eventClass !== undefined) {
    const event = new events.eventClass();
    let stack = pending.get(entity);
    if (stack === undefined) pending.set(entity, (stack = []));
    const entry = { kind, event };
    stack.push(entry);
    try {
      if (event.before !== undefined) await event.before(entity, context);
    } catch (error) {
      stack.splice(stack.indexOf(entry), 1);
      throw error;
    }
  }
  for (const read of events.before) await read(entity).call(entity, context);
}

/**
 * Runs the after-events of `kind` for `entity`: the `after` of the instance whose `before` ran for this
 * write, then each marked method in declaration order, each awaited, still inside the transaction.
 */
export async function runAfterEvents(kind: EntityEventKind, mapping: EntityMapping, entity: object, context: unknown): Promise<void> {
  const events = plans.of(mapping)[kind];
  if (events.eventClass !== undefined) {
    const stack = pending.get(entity);
    let event: EntityEvent | undefined;
    if (stack !== undefined) {
      for (let i = stack.length - 1; i >= 0; i--) {
        if (stack[i].kind === kind) {
          event = stack[i].event;
          stack.length = i;
          break;
        }
      }
      if (stack.length === 0) pending.delete(entity);
    }
    event ??= new events.eventClass();
    if (event.after !== undefined) await event.after(entity, context);
  }
  for (const read of events.after) await read(entity).call(entity, context);
}

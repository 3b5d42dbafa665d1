import { hostname } from "node:os";
import { performance } from "node:perf_hooks";
import { randomBytes } from "node:crypto";
import type { Database } from "../engines/database.js";
import { TransientDatabaseError, WebhookConfigurationError } from "../errors.js";
import type { EntityClass } from "../mapping/column-type.js";
import { EntityMapping } from "../mapping/entity-mapping.js";
import { ChangeHub } from "./change-hub.js";
import { ChangeMessages } from "./change-messages.js";
import { changeRecordFor } from "./change-policy.js";
import { changeRecordJson, type StoredChange } from "./change-record.js";
import { CallerPolicy } from "../policy/caller-policy.js";
import { entityPolicyOf } from "../policy/entity-policy.js";
import { type LeaseGuard, SubscriptionDelivery } from "./webhook-delivery.js";
import { type WebhookDeadLetter, WebhookStore } from "./webhook-store.js";
import { type CheckedSubscription, checkSubscription, storedDefinition, type WebhookSubscription } from "./webhook-subscription.js";

/** How a process delivers webhooks (`new ChangeWebhooks(database, options)`). */
export interface ChangeWebhooksOptions {
  /** The entity classes (each with `@ChangeFeed`) whose changes the subscriptions may receive; at least one. */
  readonly feeds: readonly EntityClass[];
  /** The subscriptions configured in code; each is checked when the `ChangeWebhooks` is made. */
  readonly subscriptions?: readonly WebhookSubscription[];
  /** Deliver the subscriptions stored in the database (`saveSubscription`) too; default false. */
  readonly stored?: boolean;
  /**
   * How long a lease lasts unless renewed, in milliseconds (500 to 3,600,000; default 30,000): a process that
   * dies is replaced as its subscriptions' deliverer after at most this long.
   */
  readonly leaseMs?: number;
  /**
   * How often, in milliseconds (10 to 60,000; default 1,000), the process renews its leases, tries to take the
   * free ones, looks for replays asked for and reads the stored subscriptions again.
   */
  readonly pollMs?: number;
  /** This process's name as a lease owner; default the host name, the process id and a random suffix. */
  readonly owner?: string;
  /**
   * Called with what goes wrong in the background (a database away, a malformed stored subscription, a change
   * log purged past a subscription's position); default a process warning. A transient database failure is
   * retried and not reported.
   */
  readonly onError?: (error: Error) => void;
}

/** Which dead letters `ChangeWebhooks.deadLetters` answers. */
export interface DeadLetterQuery {
  /** Only those with an id above this one (default 0: from the first). */
  readonly after?: number;
  /** At most this many (default 100). */
  readonly limit?: number;
}

/** A subscription this process delivers: its lease, kept valid by renewals, and the delivery running under it. */
interface Holding {
  readonly subscription: CheckedSubscription;
  readonly controller: AbortController;
  readonly delivery: SubscriptionDelivery;
  validUntil: number;
  done: Promise<void>;
}

/**
 * Delivers the change feed to webhook subscriptions. Every process of an application may run one: exactly one
 * process at a time delivers a given subscription, the one holding its lease (a row of
 * `tenon_webhook_leases` with an owner and an expiry, taken and renewed by conditional UPDATE on the database's
 * clock); another takes over when it stops or dies. Delivery reads the change log after commit, so it never
 * slows a write. The tables come from `Schema.apply(..., { webhooks: true })`; docs/changes.md has the rest.
 */
export class ChangeWebhooks {
  /** The database whose change log is delivered. */
  readonly database: Database;
  /** This process's name as a lease owner. */
  readonly owner: string;
  readonly #store: WebhookStore;
  readonly #feeds: ReadonlySet<string>;
  readonly #mappings = new Map<string, EntityMapping>();
  readonly #code = new Map<string, CheckedSubscription>();
  #stored = new Map<string, CheckedSubscription>();
  readonly #storedText = new Map<string, string>();
  readonly #loadStored: boolean;
  readonly #leaseMs: number;
  readonly #tickMs: number;
  readonly #report: (error: Error) => void;
  readonly #held = new Map<string, Holding>();
  readonly #created = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<void> | undefined;
  #running = false;

  /** Checks every option and subscription (a `WebhookConfigurationError` names the one at fault); starts nothing. */
  constructor(database: Database, options: ChangeWebhooksOptions) {
    this.database = database;
    this.#store = new WebhookStore(database);
    if (!Array.isArray(options.feeds) || options.feeds.length === 0)
      throw new WebhookConfigurationError("", "feeds", ChangeMessages.noFeeds);
    const feeds = new Set<string>();
    for (const entityClass of options.feeds) {
      const mapping = EntityMapping.of(entityClass);
      if (mapping.changeFeed === undefined) throw new WebhookConfigurationError("", "feeds", ChangeMessages.notAFeed(mapping.name));
      feeds.add(mapping.name);
      this.#mappings.set(mapping.name, mapping);
    }
    this.#feeds = feeds;
    for (const subscription of options.subscriptions ?? []) {
      const checked = checkSubscription(subscription, feeds);
      if (this.#code.has(checked.name))
        throw new WebhookConfigurationError(checked.name, "name", ChangeMessages.duplicateSubscription(checked.name));
      this.#code.set(checked.name, checked);
    }
    this.#loadStored = options.stored === true;
    this.#leaseMs = wholeNumber("leaseMs", options.leaseMs, 30_000, 500, 3_600_000);
    const pollMs = wholeNumber("pollMs", options.pollMs, 1_000, 10, 60_000);
    this.#tickMs = Math.min(pollMs, Math.floor(this.#leaseMs / 3));
    this.owner = options.owner ?? `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;
    const onError = options.onError ?? ((error: Error) => process.emitWarning(error));
    this.#report = (error) => {
      if (!(error instanceof TransientDatabaseError)) onError(error);
    };
  }

  /** The names of the subscriptions this process delivers now (those whose lease it holds). */
  get delivering(): readonly string[] {
    return [...this.#held.keys()];
  }

  /** Starts: takes the leases that are free, and keeps trying and renewing until `stop`. */
  async start(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    await this.#tick();
    this.#timer = setInterval(() => void this.#tick(), this.#tickMs);
    this.#timer.unref();
  }

  /** Stops every delivery of this process, stores how far each got and frees its leases for another process. */
  async stop(): Promise<void> {
    this.#running = false;
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#ticking;
    await Promise.all([...this.#held.keys()].map((name) => this.#let(name)));
  }

  /** The dead letters of a subscription, in id order. */
  async deadLetters(subscription: string, query: DeadLetterQuery = {}): Promise<WebhookDeadLetter[]> {
    await this.#known(subscription);
    return this.#store.list(subscription, query.after ?? 0, query.limit ?? 100);
  }

  /** How many dead letters a subscription has. */
  async deadLetterCount(subscription: string): Promise<number> {
    await this.#known(subscription);
    return this.#store.count(subscription);
  }

  /**
   * Asks for the dead letters of a subscription (those with the ids given, or all) to be sent again; answers
   * how many. The process that holds the subscription's lease sends them, each key's in order and before the
   * key's newer changes; one that fails again stays, with the key's later ones behind it.
   */
  async replay(subscription: string, ids?: readonly number[]): Promise<number> {
    await this.#known(subscription);
    const count = await this.#store.replay(subscription, ids);
    this.#held.get(subscription)?.delivery.poke();
    return count;
  }

  /** Deletes dead letters of a subscription (those with the ids given, or all) without sending them; answers how many. */
  async discard(subscription: string, ids?: readonly number[]): Promise<number> {
    await this.#known(subscription);
    const count = await this.#store.remove(subscription, ids);
    this.#held.get(subscription)?.delivery.poke();
    return count;
  }

  /**
   * Stores a subscription in the database (or replaces the stored one of its name), checked as one in code;
   * the processes made with `stored: true` deliver it from their next poll. A name configured in code is refused.
   */
  async saveSubscription(subscription: WebhookSubscription): Promise<void> {
    const checked = checkSubscription(subscription, this.#feeds);
    if (this.#code.has(checked.name))
      throw new WebhookConfigurationError(checked.name, "name", ChangeMessages.codeSubscription(checked.name));
    await this.#store.storeSubscription(checked.name, storedDefinition(subscription));
  }

  /** Deletes a stored subscription (its lease row and dead letters stay); false when there was none. */
  async removeSubscription(name: string): Promise<boolean> {
    if (this.#code.has(name)) throw new WebhookConfigurationError(name, "name", ChangeMessages.codeSubscription(name));
    return this.#store.removeSubscription(name);
  }

  /** Refuses a name that is no subscription of code or of the database. */
  async #known(name: string): Promise<void> {
    if (this.#code.has(name) || this.#stored.has(name)) return;
    const stored = await this.#store.storedSubscriptions();
    if (!stored.some((each) => each.name === name))
      throw new WebhookConfigurationError(name, "name", ChangeMessages.unknownSubscription(name));
  }

  #tick(): Promise<void> {
    if (this.#ticking !== undefined) return this.#ticking;
    this.#ticking = this.#renewAndTake().finally(() => (this.#ticking = undefined));
    return this.#ticking;
  }

  async #renewAndTake(): Promise<void> {
    if (this.#loadStored) await this.#readStored().catch(this.#report);
    const subscriptions = new Map([...this.#stored, ...this.#code]);
    for (const [name, holding] of this.#held) {
      if (subscriptions.get(name) !== holding.subscription) await this.#let(name);
    }
    for (const subscription of subscriptions.values()) {
      if (!this.#running) return;
      try {
        const holding = this.#held.get(subscription.name);
        if (holding === undefined) await this.#take(subscription);
        else await this.#renew(holding);
      } catch (error) {
        this.#report(error as Error);
      }
    }
  }

  async #renew(holding: Holding): Promise<void> {
    const sent = performance.now();
    try {
      if (await this.#store.renewLease(holding.subscription.name, this.owner, this.#leaseMs)) holding.validUntil = sent + this.#leaseMs;
      else holding.controller.abort();
    } finally {
      if (performance.now() >= holding.validUntil) holding.controller.abort();
      holding.delivery.poke();
    }
  }

  async #take(subscription: CheckedSubscription): Promise<void> {
    const name = subscription.name;
    const hub = ChangeHub.of(this.database);
    if (!this.#created.has(name)) {
      await this.#store.createLease(name, (await hub.log.bounds()).head);
      this.#created.add(name);
    }
    const sent = performance.now();
    if (!(await this.#store.takeLease(name, this.owner, this.#leaseMs))) return;
    const lease = await this.#store.lease(name);
    const bounds = await hub.log.bounds();
    const position = lease?.position ?? bounds.head;
    const oldest = bounds.oldest ?? bounds.head + 1;
    if (position + 1 < oldest) this.#report(new Error(ChangeMessages.purgedPastPosition(name, position, oldest)));
    const controller = new AbortController();
    const holding: Holding = {
      subscription,
      controller,
      validUntil: sent + this.#leaseMs,
      delivery: undefined as unknown as SubscriptionDelivery,
      done: Promise.resolve(),
    };
    const guard: LeaseGuard = {
      owner: this.owner,
      signal: controller.signal,
      valid: () => performance.now() < holding.validUntil,
      lost: () => controller.abort(),
    };
    (holding as { delivery: SubscriptionDelivery }).delivery = new SubscriptionDelivery(
      hub,
      this.#store,
      subscription,
      guard,
      this.#report,
      this.#recordsFor(subscription),
    );
    this.#held.set(name, holding);
    holding.done = holding.delivery
      .run(position)
      .catch(this.#report)
      .finally(() => {
        if (this.#held.get(name) === holding) this.#held.delete(name);
      });
  }

  /**
   * The records a subscription receives: with a caller, as its entities' policies let that caller hear of them
   * (`changeRecordFor`; none of a row its rules do not grant it for `changes`); else every record as stored.
   */
  #recordsFor(subscription: CheckedSubscription): ((change: StoredChange) => string | undefined) | undefined {
    const caller = subscription.caller;
    if (caller === undefined) return undefined;
    const policies = new Map<string, CallerPolicy | undefined>();
    for (const [name, mapping] of this.#mappings) {
      const declared = mapping.hasPolicy ? entityPolicyOf(mapping) : undefined;
      policies.set(name, declared === undefined ? undefined : new CallerPolicy(declared, caller));
    }
    return (change) => {
      const policy = policies.get(change.entity);
      return policy === undefined ? changeRecordJson(change) : changeRecordFor(change, policy);
    };
  }

  /** Stops delivering a subscription and frees its lease (when still held). */
  async #let(name: string): Promise<void> {
    const holding = this.#held.get(name);
    if (holding === undefined) return;
    const held = performance.now() < holding.validUntil && !holding.controller.signal.aborted;
    holding.controller.abort();
    await holding.done;
    this.#held.delete(name);
    if (held) await this.#store.releaseLease(name, this.owner).catch(this.#report);
  }

  async #readStored(): Promise<void> {
    const rows = await this.#store.storedSubscriptions();
    const next = new Map<string, CheckedSubscription>();
    for (const { name, definition } of rows) {
      if (this.#code.has(name)) continue;
      const known = this.#stored.get(name);
      if (known !== undefined && this.#storedText.get(name) === definition) {
        next.set(name, known);
        continue;
      }
      try {
        next.set(name, checkSubscription({ ...(JSON.parse(definition) as object), name }, this.#feeds));
        this.#storedText.set(name, definition);
      } catch (error) {
        if (this.#storedText.get(name) !== definition)
          this.#report(new Error(ChangeMessages.storedMalformed(name, (error as Error).message)));
        this.#storedText.set(name, definition);
      }
    }
    this.#stored = next;
  }
}

function wholeNumber(option: string, value: number | undefined, fallback: number, low: number, high: number): number {
  const given = value ?? fallback;
  if (!Number.isInteger(given) || given < low || given > high)
    throw new WebhookConfigurationError("", option, ChangeMessages.badOption(option, low, high));
  return given;
}

import type { ChangeHub, ChangeSelection } from "./change-hub.js";
import { ChangeMessages } from "./change-messages.js";
import { changeRecordJson, type StoredChange } from "./change-record.js";
import { signWith } from "./webhook-signature.js";
import type { WebhookStore } from "./webhook-store.js";
import { type CheckedSubscription, retryDelay } from "./webhook-subscription.js";

/** What a delivery knows of its lease: whether it still holds it, and a signal aborted when it stops holding it. @internal */
export interface LeaseGuard {
  /** The process's id as the lease's owner. */
  readonly owner: string;
  /** Aborted when the lease is lost or the delivery is stopped. */
  readonly signal: AbortSignal;
  /** Whether the lease is still held by the process's own clock (it expires unless renewed in time). */
  valid(): boolean;
  /** Says the lease was found lost (a conditional UPDATE changed no row). */
  lost(): void;
}

/** One thing a key's lane does: deliver a new change, or deliver the key's dead letters whose replay was asked for. */
type LaneItem = { readonly kind: "live"; readonly change: StoredChange } | { readonly kind: "drain" };

/** The events of one key, delivered one after another in position order. */
interface Lane {
  readonly entity: string;
  readonly key: number;
  readonly items: LaneItem[];
  running: boolean;
  queued: boolean;
}

/** Thrown inside a lane when the delivery stops: the item is not done, the next holder of the lease sends it. */
class Stopped extends Error {}

/** How many changes a delivery reads ahead of the oldest one not yet done. */
const windowSize = 5_000;
/** How long a lane waits after its database failed before trying its item again. */
const databaseRetryMs = 1_000;

/**
 * Delivers one subscription while this process holds its lease: reads the changes after the stored position
 * (waking with the hub), sends each key's events in position order through its own lane (several keys at once,
 * up to the subscription's concurrency), retries with backoff, sets an event aside in the dead-letter table
 * after the last attempt (and the key's later events behind it), replays dead letters when asked, and stores
 * the position up to which everything is done. @internal
 */
export class SubscriptionDelivery {
  readonly #hub: ChangeHub;
  readonly #store: WebhookStore;
  readonly #subscription: CheckedSubscription;
  readonly #guard: LeaseGuard;
  readonly #report: (error: Error) => void;
  readonly #selection: ChangeSelection;
  readonly #lanes = new Map<string, Lane>();
  readonly #ready: Lane[] = [];
  /** The keys that have (or may have) dead letters, with the id of the oldest known. */
  readonly #parked = new Map<string, number>();
  readonly #window: number[] = [];
  readonly #done = new Set<number>();
  readonly #running = new Set<Promise<void>>();
  #read = 0;
  #cursor = 0;
  #saved = 0;
  #kick: (() => void) | undefined;
  #pollWanted = true;

  readonly #recordOf: (change: StoredChange) => string | undefined;

  /**
   * `recordOf` is the text of a change's record as the subscription receives it, undefined for one it does not
   * (its caller's policy: `ChangeWebhooks`); default the record as stored.
   */
  constructor(
    hub: ChangeHub,
    store: WebhookStore,
    subscription: CheckedSubscription,
    guard: LeaseGuard,
    report: (error: Error) => void,
    recordOf: (change: StoredChange) => string | undefined = changeRecordJson,
  ) {
    this.#recordOf = recordOf;
    this.#hub = hub;
    this.#store = store;
    this.#subscription = subscription;
    this.#guard = guard;
    this.#report = report;
    this.#selection = { entities: subscription.entities, tenant: subscription.tenant };
  }

  /** Asks the delivery to look at its dead letters again (a replay may have been asked for). */
  poke(): void {
    this.#pollWanted = true;
    this.#wake();
  }

  /** Delivers from `position` (every change up to it was done) until the lease is lost or the delivery is stopped. */
  async run(position: number): Promise<void> {
    this.#read = this.#cursor = this.#saved = position;
    const signal = this.#guard.signal;
    const unsubscribe = await this.#hub.subscribe(() => this.#wake());
    // The stop wakes the loop as a change does (not a race with a promise that never settles: each race would
    // leave it one more reaction, for as long as the delivery runs).
    const stop = (): void => this.#wake();
    signal.addEventListener("abort", stop, { once: true });
    try {
      while (!signal.aborted) {
        const woken = new Promise<void>((resolve) => (this.#kick = resolve));
        try {
          if (this.#pollWanted) {
            this.#pollWanted = false;
            await this.#pollDeadLetters();
          }
          await this.#fill();
          this.#schedule();
          await this.#save();
        } catch (error) {
          // The database is away: the next wake-up (a poll of the hub, a tick of the leases) tries again.
          this.#report(error as Error);
        }
        if (!this.#guard.valid()) this.#guard.lost();
        await woken;
      }
    } finally {
      signal.removeEventListener("abort", stop);
      unsubscribe();
      await Promise.allSettled([...this.#running]);
      this.#advance();
      if (this.#guard.valid()) await this.#save().catch((error: Error) => this.#report(error));
    }
  }

  #wake(): void {
    const kick = this.#kick;
    this.#kick = undefined;
    kick?.();
  }

  /** Reads the changes after the last one read into the keys' lanes, while the window has room. */
  async #fill(): Promise<void> {
    while (this.#window.length < windowSize) {
      const head = this.#hub.head;
      const changes = await this.#hub.after(this.#read, this.#selection, 500);
      for (const change of changes) {
        this.#read = change.position;
        this.#window.push(change.position);
        this.#enqueue(change.entity, change.key, { kind: "live", change }, false);
      }
      if (changes.length < 500) {
        // Every record up to the head was looked at: those it did not answer are none of this subscription's.
        if (head > this.#read) this.#read = head;
        break;
      }
    }
    this.#advance();
  }

  #laneOf(entity: string, key: number): Lane {
    const id = `${entity}\u0000${key}`;
    let lane = this.#lanes.get(id);
    if (lane === undefined) {
      lane = { entity, key, items: [], running: false, queued: false };
      this.#lanes.set(id, lane);
    }
    return lane;
  }

  #enqueue(entity: string, key: number, item: LaneItem, first: boolean): void {
    const lane = this.#laneOf(entity, key);
    if (first) lane.items.unshift(item);
    else lane.items.push(item);
    if (!lane.running && !lane.queued) {
      lane.queued = true;
      this.#ready.push(lane);
    }
  }

  /** Starts the lanes that have work, as many as the subscription's concurrency allows. */
  #schedule(): void {
    while (this.#running.size < this.#subscription.concurrency && this.#ready.length > 0 && !this.#guard.signal.aborted) {
      const lane = this.#ready.shift() as Lane;
      lane.queued = false;
      if (lane.items.length === 0) continue;
      lane.running = true;
      const running: Promise<void> = this.#runLane(lane).finally(() => {
        this.#running.delete(running);
        lane.running = false;
        if (lane.items.length > 0) {
          lane.queued = true;
          this.#ready.push(lane);
        } else this.#lanes.delete(`${lane.entity}\u0000${lane.key}`);
        this.#wake();
      });
      this.#running.add(running);
    }
  }

  async #runLane(lane: Lane): Promise<void> {
    const item = lane.items[0];
    try {
      if (item.kind === "live") await this.#deliverLive(lane, item.change);
      else await this.#drain(lane);
      lane.items.shift();
    } catch (error) {
      if (error instanceof Stopped || this.#guard.signal.aborted) return;
      // The database failed while the item was being done: it stays first in its lane and is tried again.
      this.#report(error as Error);
      await sleep(databaseRetryMs, this.#guard.signal).catch(() => undefined);
    }
  }

  /** Sends a new change, or sets it aside behind the key's dead letters; then it is done. */
  async #deliverLive(lane: Lane, change: StoredChange): Promise<void> {
    const id = `${lane.entity}\u0000${lane.key}`;
    const body = this.#recordOf(change);
    // A change the subscription's caller may not hear of is done without a delivery.
    if (body === undefined) {
      this.#done.add(change.position);
      return;
    }
    // The memory says which keys may have dead letters; the table says whether they still do (a discard elsewhere).
    const waiting = this.#parked.has(id) ? await this.#store.firstOfKey(this.#subscription.name, lane.entity, lane.key) : undefined;
    if (waiting !== undefined) {
      this.#parked.set(id, waiting.id);
      await this.#store.insertDeadLetter(this.#letter(change, body, 0, ChangeMessages.waitingBehind(waiting.id)));
      // A replay of the key runs (or is about to): this event is replayed after the others.
      if (waiting.replaying) await this.#store.replay(this.#subscription.name, [change.position]);
    } else {
      this.#parked.delete(id);
      const failure = await this.#attempts(String(change.position), body);
      if (failure !== undefined) {
        await this.#store.insertDeadLetter(this.#letter(change, body, failure.attempts, failure.reason));
        this.#parked.set(id, change.position);
      }
    }
    this.#done.add(change.position);
  }

  /** Replays the key's dead letters in order, while a replay is asked for and they are delivered. */
  async #drain(lane: Lane): Promise<void> {
    const id = `${lane.entity}\u0000${lane.key}`;
    const name = this.#subscription.name;
    for (;;) {
      const letter = await this.#store.firstOfKey(name, lane.entity, lane.key);
      if (letter === undefined) {
        this.#parked.delete(id);
        return;
      }
      this.#parked.set(id, letter.id);
      if (!letter.replaying) return;
      const failure = await this.#attempts(String(letter.id), letter.body);
      if (failure === undefined) {
        await this.#store.remove(name, [letter.id]);
        continue;
      }
      await this.#store.failedAgain(name, letter.id, letter.attempts + failure.attempts, failure.reason);
      await this.#store.withdrawKey(name, lane.entity, lane.key);
      return;
    }
  }

  /** Sends one event until it is accepted (undefined) or the attempts are spent (how many, and the last reason). */
  async #attempts(id: string, body: string): Promise<{ attempts: number; reason: string } | undefined> {
    const subscription = this.#subscription;
    for (let attempt = 1; ; attempt++) {
      if (this.#guard.signal.aborted || !this.#guard.valid()) throw new Stopped();
      const reason = await post(subscription, id, body, attempt);
      if (reason === undefined) return undefined;
      if (this.#guard.signal.aborted) throw new Stopped();
      if (attempt >= subscription.maxAttempts) return { attempts: attempt, reason };
      await sleep(retryDelay(subscription, attempt), this.#guard.signal).catch(() => {
        throw new Stopped();
      });
    }
  }

  #letter(change: StoredChange, payload: string, attempts: number, lastError: string) {
    return {
      subscription: this.#subscription.name,
      position: change.position,
      entity: change.entity,
      key: change.key,
      tenant: change.tenant,
      payload,
      attempts,
      lastError,
    };
  }

  /** Reads which keys have dead letters and which of them are to be replayed; a key in doubt gets a drain, which reads it again. */
  async #pollDeadLetters(): Promise<void> {
    const keys = await this.#store.keysOf(this.#subscription.name);
    const seen = new Set<string>();
    for (const { entity, key, replaying } of keys) {
      const id = `${entity}\u0000${key}`;
      seen.add(id);
      if (!this.#parked.has(id) || replaying) this.#drainLater(entity, key);
    }
    for (const id of this.#parked.keys()) {
      if (seen.has(id)) continue;
      const [entity, key] = id.split("\u0000");
      this.#drainLater(entity, Number(key));
    }
  }

  #drainLater(entity: string, key: number): void {
    const lane = this.#laneOf(entity, key);
    if (lane.items.some((item) => item.kind === "drain")) return;
    this.#enqueue(entity, key, { kind: "drain" }, !lane.running);
  }

  /** Moves the cursor past every change done, in order. */
  #advance(): void {
    const window = this.#window;
    let done = 0;
    while (done < window.length && this.#done.has(window[done])) {
      this.#done.delete(window[done]);
      done++;
    }
    if (done > 0) window.splice(0, done);
    this.#cursor = window.length === 0 ? this.#read : window[0] - 1;
  }

  /** Stores the cursor when it moved; a lease found lost stops the delivery. */
  async #save(): Promise<void> {
    this.#advance();
    const position = this.#cursor;
    if (position === this.#saved) return;
    if (await this.#store.savePosition(this.#subscription.name, this.#guard.owner, position)) this.#saved = position;
    else this.#guard.lost();
  }
}

/**
 * Sends one attempt; answers undefined when the receiver took it (2xx), else why not. A stopping delivery lets an
 * attempt under way finish (within the timeout): aborted, it could be taken by the receiver and sent again.
 */
async function post(subscription: CheckedSubscription, id: string, body: string, attempt: number): Promise<string | undefined> {
  const timestamp = Math.floor(Date.now() / 1000);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), subscription.timeoutMs);
  try {
    const response = await fetch(subscription.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": "Tenon-Webhooks",
        "webhook-id": id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": signWith(subscription.key, id, timestamp, body),
        "tenon-subscription": subscription.name,
        "tenon-attempt": String(attempt),
      },
      body,
      redirect: "manual",
      signal: controller.signal,
    });
    await response.body?.cancel().catch(() => undefined);
    return response.status >= 200 && response.status < 300 ? undefined : ChangeMessages.answeredStatus(response.status);
  } catch (error) {
    if (controller.signal.aborted) return ChangeMessages.timedOut(subscription.timeoutMs);
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return ChangeMessages.unreachable(cause?.code ?? cause?.message ?? (error as Error).message);
  } finally {
    clearTimeout(timer);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new Stopped());
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new Stopped());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

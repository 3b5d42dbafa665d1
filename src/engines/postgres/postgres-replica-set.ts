import pg from "pg";
import type { ReadTarget } from "../database.js";
import { EngineMessages } from "../engine-messages.js";
import type { PostgresServer } from "./postgres-servers.js";

/** How a multi-host database watches its servers. */
export interface ReplicaSetSettings {
  /** Milliseconds between two checks of every server (role, WAL position). */
  readonly checkInterval: number;
  /** Milliseconds a replica may be behind the primary and stay in rotation. */
  readonly maxReplicaLag: number;
  /** Milliseconds a read with a consistency token waits for a replica to replay past it before it goes to the primary. */
  readonly consistencyWait: number;
  /** Milliseconds to wait for a connection of the checks. */
  readonly connectTimeout: number;
}

/** What a check found a server to be. */
type Role = "primary" | "replica" | "unreachable";

/** One server of the set: its pool and what the last check (or replay poll) saw. */
export class ReplicaSetMember {
  /** The server. */
  readonly server: PostgresServer;
  /** @internal The pool of sessions' connections to it (the declarations name no `pg` type). */
  readonly pool: pg.Pool;
  /** @internal The connection of the checks, kept open between them. */
  monitor: pg.Client | undefined = undefined;
  /** What the last check found. */
  role: Role = "unreachable";
  /** The primary's WAL position (`pg_current_wal_lsn()`), or a replica's replay position (`pg_last_wal_replay_lsn()`). */
  lsn = 0n;
  /** How far behind the primary a replica is, in milliseconds (see `ReplicaSet.#lagOf`). */
  lagMs = 0;
  /** Whether its replay is paused (`pg_wal_replay_pause()`). */
  paused = false;

  /** @internal @param server the server. @param pool its pool. */
  constructor(server: PostgresServer, pool: pg.Pool) {
    this.server = server;
    this.pool = pool;
  }
}

/** What `ReplicaSet.figures` reports of one server. */
export interface ReplicaSetServerFigures {
  /** `host:port`. */
  readonly address: string;
  /** What the last check found. */
  readonly role: Role;
  /** Seconds a replica is behind the primary (0 for the primary and unreachable servers). */
  readonly lagSeconds: number;
  /** Whether reads go to it (a reachable replica within the lag bound). */
  readonly inRotation: boolean;
}

/** Counters of a multi-host database: reads per target, consistency waits per outcome, failovers noticed. */
export interface ReplicaSetCounters {
  /** Read statements of sessions, by where they ran. */
  readonly reads: Record<ReadTarget, number>;
  /**
   * Reads that carried a consistency token, by outcome: served by a replica that had replayed past it at
   * once (`replica`), after waiting for one (`waited`), or by the primary after the wait (`primary`).
   */
  readonly consistencyWaits: { replica: number; waited: number; primary: number };
  /** Times the primary was found on another server than before. */
  failovers: number;
}

/** A read waiting for a replica to replay past its token. */
interface Waiter {
  readonly after: bigint;
  readonly resolve: (member: ReplicaSetMember | undefined) => void;
}

/** How often replicas are asked for their replay position while reads wait for one. */
const replayPollMs = 10;
/** The least time between two checks started because no primary was known. */
const recheckMs = 100;

/** `X/Y` (a pg_lsn's text) as a number. */
export function lsnValue(text: string): bigint | undefined {
  const match = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text);
  return match === null ? undefined : (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`);
}

/** A number as a pg_lsn's text (`X/Y`, upper-case hexadecimal). */
export function lsnText(value: bigint): string {
  return `${(value >> 32n).toString(16).toUpperCase()}/${(value & 0xffffffffn).toString(16).toUpperCase()}`;
}

const checkSql = `SELECT pg_is_in_recovery(),
  (CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() END)::text,
  (CASE WHEN pg_is_in_recovery() THEN pg_is_wal_replay_paused() ELSE false END)`;
const replaySql = "SELECT pg_last_wal_replay_lsn()::text";

/**
 * The servers of a multi-host PostgreSQL database (a primary and its streaming replicas, as a Patroni cluster
 * has them): which one is the primary, which replicas are in rotation, how far each has replayed. A check asks
 * every server `pg_is_in_recovery()` and its WAL position, every `checkInterval`, and at once when a session
 * finds the primary gone (a connection lost, a write refused by a server in recovery): the primary is the one
 * server not in recovery (none while two say so). Tenon never decides a failover: it follows what the
 * servers say.
 *
 * A replica's lag is measured against the primary's history: the checks keep when the primary was at which
 * WAL position, and a replica that has not replayed the position the primary had at time t is behind by at
 * least now - t. A replica behind by more than `maxReplicaLag` is out of rotation until it catches up.
 */
export class ReplicaSet {
  /** Every server, in the order given. */
  readonly members: readonly ReplicaSetMember[];
  /** Reads, consistency waits and failovers counted so far. */
  readonly counters: ReplicaSetCounters = {
    reads: { replica: 0, primary: 0 },
    consistencyWaits: { replica: 0, waited: 0, primary: 0 },
    failovers: 0,
  };
  readonly #settings: ReplicaSetSettings;
  readonly #where: string;
  #primary: ReplicaSetMember | undefined = undefined;
  /** The last primary found, to tell a failover from a primary that came back. */
  #lastPrimary: ReplicaSetMember | undefined = undefined;
  /** When the primary was at which WAL position, oldest first. */
  #history: { readonly at: number; readonly lsn: bigint }[] = [];
  #checking: Promise<void> | undefined = undefined;
  #lastCheckEnded = 0;
  #timer: NodeJS.Timeout | undefined = undefined;
  #started = false;
  /** Set once a check has completed. */
  #checked = false;
  #closed = false;
  #next = 0;
  readonly #waiters = new Set<Waiter>();
  #polling = false;

  /** @param members the servers. @param settings how they are watched. @param where the database, for messages. */
  constructor(members: readonly ReplicaSetMember[], settings: ReplicaSetSettings, where: string) {
    this.members = members;
    this.#settings = settings;
    this.#where = where;
  }

  /** The primary, found by a check first when none is known; rejects (a plain error, so that it counts as transient) when none is. */
  async primary(): Promise<ReplicaSetMember> {
    this.#start();
    const known = this.#primary;
    if (known !== undefined) return known;
    await this.#refresh();
    const found = this.#primary;
    if (found !== undefined) return found;
    throw new Error(EngineMessages.noPrimary("PostgreSQL", this.#where, this.#describe()));
  }

  /**
   * The replica to read from: one in rotation that has replayed past `after` (round robin), waiting up to
   * `consistencyWait` for one when a token is given; undefined: read from the primary.
   */
  replicaFor(after: bigint | undefined): ReplicaSetMember | undefined | Promise<ReplicaSetMember | undefined> {
    this.#start();
    // Before the first check nothing is known of the replicas: the first reads wait for it rather than all go to the primary.
    if (!this.#checked) return this.#refresh().then(() => this.replicaFor(after));
    const ready = this.#pick(after);
    if (after === undefined) return ready;
    const waits = this.counters.consistencyWaits;
    if (ready !== undefined) {
      waits.replica++;
      return ready;
    }
    if (this.#settings.consistencyWait <= 0 || !this.members.some((member) => this.#inRotation(member))) {
      waits.primary++;
      return undefined;
    }
    return new Promise<ReplicaSetMember | undefined>((resolve) => {
      const waiter: Waiter = {
        after,
        resolve: (member) => {
          clearTimeout(timer);
          this.#waiters.delete(waiter);
          if (member === undefined) waits.primary++;
          else waits.waited++;
          resolve(member);
        },
      };
      const timer = setTimeout(() => waiter.resolve(undefined), this.#settings.consistencyWait);
      this.#waiters.add(waiter);
      this.#pollReplay();
    });
  }

  /**
   * A session found `member` failing (a connection refused or lost, a write refused in recovery): a primary is
   * forgotten and looked for again at once; a replica leaves the rotation until the next check finds it well.
   */
  suspect(member: ReplicaSetMember): void {
    if (this.#closed) return;
    if (member === this.#primary) {
      this.#primary = undefined;
      void this.#refresh();
    } else if (member.role === "replica") {
      member.role = "unreachable";
    }
  }

  /** The servers as the last check saw them. */
  figures(): ReplicaSetServerFigures[] {
    return this.members.map((member) => ({
      address: member.server.address,
      role: member.role,
      lagSeconds: member.role === "replica" ? member.lagMs / 1000 : 0,
      inRotation: this.#inRotation(member),
    }));
  }

  /** Stops the checks and closes their connections (the pools are the database's to end). */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    for (const waiter of [...this.#waiters]) waiter.resolve(undefined);
    await Promise.all(this.members.map((member) => member.monitor?.end().catch(() => undefined)));
  }

  #inRotation(member: ReplicaSetMember): boolean {
    return member.role === "replica" && member.lagMs <= this.#settings.maxReplicaLag;
  }

  #pick(after: bigint | undefined): ReplicaSetMember | undefined {
    const members = this.members;
    for (let tried = 0; tried < members.length; tried++) {
      const member = members[(this.#next + tried) % members.length];
      if (this.#inRotation(member) && (after === undefined || member.lsn >= after)) {
        this.#next = (this.#next + tried + 1) % members.length;
        return member;
      }
    }
    return undefined;
  }

  /** Starts the periodic checks, at the first use (constructing a database opens no connection). */
  #start(): void {
    if (this.#started || this.#closed) return;
    this.#started = true;
    void this.#refresh();
  }

  /** A check now, or the one under way; one started because no primary was known waits `recheckMs` after the last. */
  #refresh(): Promise<void> {
    if (this.#checking !== undefined) return this.#checking;
    const delay = Math.max(0, this.#lastCheckEnded + recheckMs - Date.now());
    const checking = (async () => {
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
      try {
        await this.#check();
      } finally {
        this.#lastCheckEnded = Date.now();
        this.#checking = undefined;
        this.#schedule();
      }
    })();
    this.#checking = checking;
    return checking;
  }

  #schedule(): void {
    clearTimeout(this.#timer);
    if (this.#closed) return;
    this.#timer = setTimeout(() => void this.#refresh(), this.#settings.checkInterval);
    this.#timer.unref();
  }

  /** Asks every server its role and WAL position, then decides the primary, the lags and the rotation. */
  async #check(): Promise<void> {
    await Promise.all(this.members.map((member) => this.#probe(member)));
    this.#checked = true;
    if (this.#closed) return;
    const now = Date.now();
    const primaries = this.members.filter((member) => member.role === "primary");
    const primary = primaries.length === 1 ? primaries[0] : undefined;
    if (primary !== undefined) {
      if (this.#lastPrimary !== undefined && primary !== this.#lastPrimary) {
        this.counters.failovers++;
        // Positions of the old primary's timeline say nothing of the new one's lag.
        this.#history = [];
      }
      this.#lastPrimary = primary;
      const history = this.#history;
      history.push({ at: now, lsn: primary.lsn });
      const horizon = now - this.#settings.maxReplicaLag - 2 * this.#settings.checkInterval;
      while (history.length > 1 && history[0].at < horizon) history.shift();
    }
    this.#primary = primary;
    for (const member of this.members) member.lagMs = member.role === "replica" ? this.#lagOf(member, now) : 0;
    this.#resolveWaiters();
  }

  /** How long ago the primary was at a position the replica has not replayed yet (0 when it has replayed every one seen). */
  #lagOf(member: ReplicaSetMember, now: number): number {
    for (const sample of this.#history) if (sample.lsn > member.lsn) return now - sample.at;
    return 0;
  }

  async #monitorOf(member: ReplicaSetMember): Promise<pg.Client> {
    if (member.monitor !== undefined) return member.monitor;
    const timeout = Math.min(this.#settings.connectTimeout, 2000);
    const client = new pg.Client({
      ...member.pool.options,
      application_name: "tenon-replica-check",
      connectionTimeoutMillis: timeout,
      query_timeout: timeout,
      options: undefined,
    });
    client.on("error", () => {
      if (member.monitor === client) member.monitor = undefined;
    });
    member.monitor = client;
    try {
      await client.connect();
    } catch (error) {
      if (member.monitor === client) member.monitor = undefined;
      throw error;
    }
    return client;
  }

  async #probe(member: ReplicaSetMember): Promise<void> {
    try {
      const client = await this.#monitorOf(member);
      const row = (await client.query({ text: checkSql, rowMode: "array" })).rows[0] as [boolean, string | null, boolean];
      member.role = row[0] ? "replica" : "primary";
      member.lsn = lsnValue(row[1] ?? "") ?? 0n;
      member.paused = row[2];
    } catch {
      // Down, starting, or without the database yet (a replica that has not replayed its creation).
      member.role = "unreachable";
      const client = member.monitor;
      member.monitor = undefined;
      await client?.end().catch(() => undefined);
    }
  }

  /** Asks the replicas their replay position every few milliseconds while reads wait for one. */
  #pollReplay(): void {
    if (this.#polling) return;
    this.#polling = true;
    void (async () => {
      try {
        while (this.#waiters.size > 0 && !this.#closed) {
          await Promise.all(
            this.members
              .filter((member) => this.#inRotation(member))
              .map(async (member) => {
                try {
                  const client = await this.#monitorOf(member);
                  const row = (await client.query({ text: replaySql, rowMode: "array" })).rows[0] as [string | null];
                  member.lsn = lsnValue(row[0] ?? "") ?? member.lsn;
                } catch {
                  // The next check decides what this server is.
                }
              }),
          );
          this.#resolveWaiters();
          if (this.#waiters.size > 0) await new Promise((resolve) => setTimeout(resolve, replayPollMs));
        }
      } finally {
        this.#polling = false;
      }
    })();
  }

  #resolveWaiters(): void {
    for (const waiter of [...this.#waiters]) {
      const member = this.#pick(waiter.after);
      if (member !== undefined) waiter.resolve(member);
    }
  }

  /** What each server was found to be, for the message of a missing primary. */
  #describe(): string {
    return this.members.map((member) => `${member.server.address} ${member.role}`).join(", ");
  }
}

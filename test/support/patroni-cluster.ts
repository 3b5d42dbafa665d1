// A Patroni cluster of three PostgreSQL 15 nodes on 127.0.0.1, with etcd for its consensus (one member, or
// three) and optionally HAProxy in front, for the replica and failover tests and for
// `scripts/patroni.sh up|down|status`. Every port is free at run time (never 5432 nor any fixed number), every
// data directory lives in one owned temporary directory (owned-directory.ts: a killed test run's cluster is
// cleaned up by its watchdog or the next run's sweep), Patroni and PostgreSQL run as the `postgres` OS user,
// and stopping the cluster stops every process it started and removes the directory.
import { spawnSync } from "node:child_process";
import { chownSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { userInfo } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { freePorts } from "./free-port.js";
import { cleanUpDirectory, createOwnedDirectory } from "./owned-directory.js";
import { commandLineOf, namesDirectory, type ServerProcess, startServer, stopGroup } from "./server-processes.js";
import { postgresBin } from "./throwaway-postgres.js";
import { retried } from "./retried.js";
import type { ScratchDatabase } from "./scratch-database.js";

/** What a node is, as the state file records it. */
export interface PatroniNodeState {
  /** `node1`, `node2`, `node3` (also Patroni's member name). */
  readonly name: string;
  /** PostgreSQL's port. */
  readonly port: number;
  /** Patroni's REST API port (`/primary`, `/replica`, `/cluster`, `/config`). */
  readonly restPort: number;
  /** The data directory. */
  readonly dataDirectory: string;
  /** Patroni's process (group) id, or 0 while stopped. */
  pid: number;
}

/** One etcd member. */
export interface EtcdMemberState {
  readonly name: string;
  readonly clientPort: number;
  readonly peerPort: number;
  pid: number;
}

/** Everything needed to find and stop a cluster again: written to the state file by `patroni.sh up`. */
export interface PatroniClusterState {
  /** The mkdtemp directory holding the data directories, configurations and logs. */
  readonly directory: string;
  /** Patroni's scope (the cluster's name in etcd). */
  readonly scope: string;
  readonly etcd: EtcdMemberState[];
  readonly nodes: PatroniNodeState[];
  /** HAProxy's ports (primary: read-write; replicas: read-only, round robin), when it runs. */
  haproxy: { readonly primaryPort: number; readonly replicaPort: number; pid: number } | undefined;
  /** `postgres://postgres@127.0.0.1:<port1>,127.0.0.1:<port2>,127.0.0.1:<port3>/postgres`: every node, for Tenon to find the primary itself. */
  readonly url: string;
}

/** Options of `startPatroniCluster`. */
export interface PatroniClusterOptions {
  /** Let the processes outlive this process (for `patroni.sh up`; `patroni.sh down` stops them). */
  readonly outlive?: boolean;
  /** etcd members (1 or 3; default 1). */
  readonly etcdMembers?: 1 | 3;
  /** Start HAProxy with a primary and a replica port checked through Patroni's REST API (default false). */
  readonly haproxy?: boolean;
  /** Patroni's `synchronous_mode` (default true: a commit is acknowledged once a standby has it). */
  readonly synchronousMode?: boolean;
  /** Patroni's `synchronous_node_count` (default 1). */
  readonly synchronousNodeCount?: number;
  /** PostgreSQL's `synchronous_commit` (default `on`; `remote_apply` makes a commit visible on the synchronous standbys before it is acknowledged). */
  readonly synchronousCommit?: "on" | "remote_write" | "remote_apply" | "local" | "off";
  /** Milliseconds to wait for the cluster to be ready (default 120 000). */
  readonly timeoutMs?: number;
}

/** A running cluster started by this process (or described by a state file). */
export interface PatroniCluster {
  /** Ports, directories and process ids. */
  readonly state: PatroniClusterState;
  /** Every node in one URL (`postgres://postgres@h1:p1,h2:p2,h3:p3/<database>`), with `parameters` as its query. */
  url(database?: string, parameters?: Record<string, string>): string;
  /** The URL of one node. */
  nodeUrl(index: number, database?: string): string;
  /** The index of the node Patroni has as its leader now, or -1 while there is none. */
  leader(): Promise<number>;
  /**
   * Waits until the cluster has a leader and every other node streams from it, with at least
   * `synchronousStandbys` of those nodes synchronous (default: what the cluster's configuration asks for now,
   * `synchronous_node_count` in synchronous mode and none outside it); answers the leader's index. Only the
   * cluster's members count: a `pg_basebackup` cloning a replica also streams from the leader.
   */
  waitHealthy(timeoutMs?: number, synchronousStandbys?: number): Promise<number>;
  /** Kills the leader's postmaster with SIGKILL (as a crash would); answers the index of the node killed. */
  killLeaderPostmaster(): Promise<number>;
  /** Changes the cluster's dynamic configuration (Patroni's `PATCH /config`), then waits until it is applied. */
  configure(configuration: Record<string, unknown>): Promise<void>;
  /** Runs SQL on one node, on a connection of its own, and answers the rows. */
  query(index: number, sql: string, parameters?: readonly unknown[]): Promise<Record<string, unknown>[]>;
  /**
   * A database of the test's own, created on the leader: `url` reaches every node (Tenon finds the primary),
   * `rows` and `exec` run on whichever node leads when they run (tried again while a failover is under way), and
   * `close` drops it there.
   */
  scratch(prefix: string, parameters?: Record<string, string>): Promise<ScratchDatabase>;
  /** Stops HAProxy, Patroni (which stops PostgreSQL), etcd, and removes the directory. */
  stop(): Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Answers why a Patroni cluster cannot be started here, or undefined when it can. */
export function patroniUnavailable(options: { haproxy?: boolean } = {}): string | undefined {
  const programs = ["patroni", "etcd", ...(options.haproxy === true ? ["haproxy"] : [])];
  for (const program of programs) {
    if (spawnSync("sh", ["-c", `command -v ${program}`], { stdio: "ignore" }).status !== 0)
      return `${program} is not installed (Debian packages patroni, etcd-server${options.haproxy === true ? ", haproxy" : ""})`;
  }
  if (spawnSync("test", ["-x", join(postgresBin, "postgres")]).status !== 0)
    return `the PostgreSQL server binaries are not in ${postgresBin}`;
  if (userInfo().uid !== 0) return "Patroni and PostgreSQL run as the postgres OS user, which needs root to start them";
  return undefined;
}

/** The ids of the `postgres` OS user. */
function postgresUser(): { uid: number; gid: number } {
  const uid = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
  const gid = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
  if (uid.status !== 0 || gid.status !== 0) throw new Error("There is no postgres OS user to run Patroni as.");
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/**
 * The configuration of one node. Timings are short for tests: a leader key lives 10 s, Patroni's loop runs
 * every second, and a primary whose PostgreSQL crashed is not restarted in place (`primary_start_timeout: 0`)
 * but fails over to a replica, which is what a crash of a primary's machine would mean.
 */
function nodeConfiguration(state: PatroniClusterState, node: PatroniNodeState, options: PatroniClusterOptions): string {
  const etcdHosts = state.etcd.map((member) => `127.0.0.1:${member.clientPort}`).join(",");
  const lines = [
    `scope: ${state.scope}`,
    "namespace: /tenon/",
    `name: ${node.name}`,
    "log:",
    `  dir: ${join(state.directory, `${node.name}-log`)}`,
    "  level: INFO",
    "restapi:",
    `  listen: 127.0.0.1:${node.restPort}`,
    `  connect_address: 127.0.0.1:${node.restPort}`,
    "etcd3:",
    `  hosts: ${etcdHosts}`,
    "bootstrap:",
    "  dcs:",
    "    ttl: 10",
    "    loop_wait: 1",
    "    retry_timeout: 3",
    "    maximum_lag_on_failover: 1048576",
    "    primary_start_timeout: 0",
    `    synchronous_mode: ${options.synchronousMode ?? true}`,
    `    synchronous_node_count: ${options.synchronousNodeCount ?? 1}`,
    "    postgresql:",
    "      use_pg_rewind: true",
    "      use_slots: true",
    "      parameters:",
    "        wal_level: replica",
    '        hot_standby: "on"',
    '        hot_standby_feedback: "on"',
    '        wal_log_hints: "on"',
    "        max_wal_senders: 10",
    "        max_replication_slots: 10",
    "        wal_keep_size: 64MB",
    `        synchronous_commit: ${options.synchronousCommit ?? "on"}`,
    "        max_connections: 200",
    "        shared_buffers: 16MB",
    // Not the durability under test: a SIGKILL of a postmaster leaves the OS's page cache intact.
    '        fsync: "off"',
    "  initdb:",
    "  - encoding: UTF8",
    "  - locale: C",
    "  - auth: trust",
    "  pg_hba:",
    "  - local all all trust",
    "  - host replication replicator 127.0.0.1/32 trust",
    "  - host all all 127.0.0.1/32 trust",
    "postgresql:",
    `  listen: 127.0.0.1:${node.port}`,
    `  connect_address: 127.0.0.1:${node.port}`,
    `  data_dir: ${node.dataDirectory}`,
    `  bin_dir: ${postgresBin}`,
    `  pgpass: ${join(state.directory, `${node.name}.pgpass`)}`,
    "  authentication:",
    "    replication:",
    "      username: replicator",
    "      password: replicator",
    // initdb refuses an empty password file; authentication is `trust` on loopback all the same.
    "    superuser:",
    "      username: postgres",
    "      password: postgres",
    "    rewind:",
    "      username: postgres",
    "      password: postgres",
    "  parameters:",
    `    unix_socket_directories: ${state.directory}`,
    "",
  ];
  return lines.join("\n");
}

function haproxyConfiguration(state: PatroniClusterState, ports: { primaryPort: number; replicaPort: number }): string {
  // The usual Patroni set-up: each node's PostgreSQL port, checked through its REST API (200 on /primary only on
  // the leader, on /replica only on a running replica); a node that fails its check has its sessions cut.
  const servers = state.nodes.map((node) => `  server ${node.name} 127.0.0.1:${node.port} check port ${node.restPort}`);
  return [
    "global",
    "  maxconn 2000",
    "defaults",
    "  mode tcp",
    "  timeout connect 2s",
    "  timeout client 1h",
    "  timeout server 1h",
    "  timeout check 1s",
    "listen primary",
    `  bind 127.0.0.1:${ports.primaryPort}`,
    "  option httpchk GET /primary",
    "  http-check expect status 200",
    "  default-server inter 500ms fall 2 rise 2 on-marked-down shutdown-sessions",
    ...servers,
    "listen replicas",
    `  bind 127.0.0.1:${ports.replicaPort}`,
    "  balance roundrobin",
    "  option httpchk GET /replica",
    "  http-check expect status 200",
    "  default-server inter 500ms fall 2 rise 2 on-marked-down shutdown-sessions",
    ...servers,
    "",
  ].join("\n");
}

function etcdArguments(state: PatroniClusterState, member: EtcdMemberState): string[] {
  const cluster = state.etcd.map((each) => `${each.name}=http://127.0.0.1:${each.peerPort}`).join(",");
  return [
    "--name",
    member.name,
    "--data-dir",
    join(state.directory, member.name),
    "--listen-client-urls",
    `http://127.0.0.1:${member.clientPort}`,
    "--advertise-client-urls",
    `http://127.0.0.1:${member.clientPort}`,
    "--listen-peer-urls",
    `http://127.0.0.1:${member.peerPort}`,
    "--initial-advertise-peer-urls",
    `http://127.0.0.1:${member.peerPort}`,
    "--initial-cluster",
    cluster,
    "--initial-cluster-state",
    "new",
    "--initial-cluster-token",
    state.scope,
    "--logger",
    "zap",
    "--log-outputs",
    join(state.directory, `${member.name}.log`),
  ];
}

/** What the REST API of a node answers (JSON), or undefined when it does not answer. */
async function rest(node: PatroniNodeState, path: string, init?: RequestInit): Promise<{ status: number; body: unknown } | undefined> {
  try {
    const response = await fetch(`http://127.0.0.1:${node.restPort}${path}`, { ...init, signal: AbortSignal.timeout(2000) });
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    return { status: response.status, body };
  } catch {
    return undefined;
  }
}

/** The members of the cluster as one node's `GET /cluster` says, or undefined. */
interface ClusterMember {
  readonly name: string;
  readonly role: string;
  readonly state: string;
}

async function membersOf(state: PatroniClusterState): Promise<ClusterMember[] | undefined> {
  for (const node of state.nodes) {
    const answer = await rest(node, "/cluster");
    if (answer?.status === 200) return (answer.body as { members: ClusterMember[] }).members;
  }
  return undefined;
}

/**
 * How many synchronous standbys the cluster's dynamic configuration asks for now: `synchronous_node_count` (1
 * when unset) in `synchronous_mode`, 0 outside it; undefined when no node answers.
 */
async function synchronousStandbysConfigured(state: PatroniClusterState): Promise<number | undefined> {
  for (const node of state.nodes) {
    const answer = await rest(node, "/config");
    if (answer?.status !== 200) continue;
    const configuration = answer.body as { synchronous_mode?: boolean; synchronous_node_count?: number };
    return configuration.synchronous_mode === true ? (configuration.synchronous_node_count ?? 1) : 0;
  }
  return undefined;
}

/** The last lines of a node's Patroni log, for an error message. */
function tailOfLogs(state: PatroniClusterState): string {
  const parts: string[] = [];
  for (const node of state.nodes) {
    let log: string;
    try {
      log = readFileSync(join(state.directory, `${node.name}-log`, "patroni.log"), "utf8");
    } catch {
      log = "(no log)";
    }
    parts.push(`--- ${node.name}:\n${log.split("\n").slice(-12).join("\n")}`);
  }
  return parts.join("\n");
}

/** True when `pid` is a process started for the cluster in `directory` (its command line names it). */
function runsFor(pid: number, directory: string): boolean {
  return pid !== 0 && namesDirectory(commandLineOf(pid), directory);
}

/**
 * Stops what a state describes (this process's or another's), and removes its directory. Only processes whose
 * command line names the cluster's directory are signalled: HAProxy, then each node's Patroni (which stops its
 * PostgreSQL), then etcd, then whatever else still runs for it (a PostgreSQL whose Patroni was killed).
 */
export async function stopPatroniCluster(state: PatroniClusterState): Promise<void> {
  try {
    if (state.haproxy !== undefined && runsFor(state.haproxy.pid, state.directory)) await stopGroup(state.haproxy.pid, 2000);
    await Promise.all(
      state.nodes.map(async (node) => {
        if (runsFor(node.pid, state.directory)) await stopGroup(node.pid, 15_000);
        node.pid = 0;
      }),
    );
    for (const member of state.etcd) {
      if (runsFor(member.pid, state.directory)) await stopGroup(member.pid, 5000);
      member.pid = 0;
    }
  } finally {
    cleanUpDirectory(state.directory);
  }
}

/** A cluster's operations over its state (started here, or read back from a state file). */
export function patroniClusterOf(state: PatroniClusterState): PatroniCluster {
  const hosts = (): string => state.nodes.map((node) => `127.0.0.1:${node.port}`).join(",");
  const leader = async (): Promise<number> => {
    const members = await membersOf(state);
    const name = members?.find((member) => member.role === "leader" && member.state === "running")?.name;
    return name === undefined ? -1 : state.nodes.findIndex((node) => node.name === name);
  };
  const waitHealthy = async (timeoutMs = 120_000, synchronousStandbys?: number): Promise<number> => {
    const deadline = Date.now() + timeoutMs;
    let last = "";
    while (Date.now() < deadline) {
      const index = await leader();
      const wanted = synchronousStandbys ?? (await synchronousStandbysConfigured(state));
      if (index >= 0 && wanted !== undefined) {
        const client = new pg.Client({ connectionString: nodeUrl(index), connectionTimeoutMillis: 2000 });
        client.on("error", () => {});
        try {
          await client.connect();
          // The members only, by the application_name Patroni gives their WAL receivers: while a replica is being
          // cloned, pg_basebackup's own WAL stream is a walsender in state 'streaming' too, and counting those once
          // let a cluster with no replica yet (and synchronous_standby_names still empty) pass for healthy.
          const { rows } = await client.query<{ streaming: number; sync: number; mode: string }>(
            `SELECT count(*)::int AS streaming, count(*) FILTER (WHERE sync_state IN ('sync', 'quorum'))::int AS sync,
                    current_setting('synchronous_standby_names') AS mode
               FROM pg_stat_replication WHERE state = 'streaming' AND application_name = ANY($1)`,
            [state.nodes.filter((_, each) => each !== index).map((node) => node.name)],
          );
          const { streaming, sync, mode } = rows[0];
          // Synchronous standbys asked for are counted, never assumed: an empty synchronous_standby_names in
          // synchronous mode means Patroni has not assigned any yet, and every commit is then asynchronous.
          if (streaming === state.nodes.length - 1 && sync >= wanted) return index;
          last = `${streaming} members streaming, ${sync} synchronous of ${wanted} asked for (synchronous_standby_names '${mode}')`;
        } catch (error) {
          last = (error as Error).message;
        } finally {
          await client.end().catch(() => {});
        }
      } else {
        last = index < 0 ? "no leader" : "no node answered GET /config";
      }
      await sleep(250);
    }
    throw new Error(`The Patroni cluster was not healthy within ${timeoutMs} ms (${last}). The logs end:\n${tailOfLogs(state)}`);
  };
  const nodeUrl = (index: number, database = "postgres"): string => `postgres://postgres@127.0.0.1:${state.nodes[index].port}/${database}`;
  const url = (database = "postgres", parameters: Record<string, string> = {}): string => {
    const query = new URLSearchParams(parameters).toString();
    return `postgres://postgres@${hosts()}/${database}${query === "" ? "" : `?${query}`}`;
  };
  return {
    state,
    url,
    nodeUrl,
    leader,
    waitHealthy,
    async killLeaderPostmaster() {
      const index = await leader();
      if (index < 0) throw new Error("The Patroni cluster has no leader to kill.");
      const pid = Number(readFileSync(join(state.nodes[index].dataDirectory, "postmaster.pid"), "utf8").split("\n")[0]);
      process.kill(pid, "SIGKILL");
      return index;
    },
    async configure(configuration) {
      let answer: { status: number; body: unknown } | undefined;
      for (const node of state.nodes) {
        answer = await rest(node, "/config", {
          method: "PATCH",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify(configuration),
        });
        if (answer?.status === 200) break;
      }
      if (answer?.status !== 200) throw new Error(`Patroni refused the configuration: ${JSON.stringify(answer?.body)}`);
      // Every node applies a changed configuration within its next loop (a second); settings that need a
      // restart are not changed by the tests.
      const deadline = Date.now() + 30_000;
      for (;;) {
        const pending = await Promise.all(state.nodes.map((node) => rest(node, "/patroni")));
        const applied = pending.every(
          (each) => each?.status === 200 && (each.body as { pending_restart?: boolean }).pending_restart !== true,
        );
        if (applied || Date.now() > deadline) break;
        await sleep(200);
      }
      await sleep(2500);
    },
    async query(index, sql, parameters = []) {
      const client = new pg.Client({ connectionString: nodeUrl(index), connectionTimeoutMillis: 5000 });
      client.on("error", () => {});
      await client.connect();
      try {
        return (await client.query(sql, [...parameters])).rows as Record<string, unknown>[];
      } finally {
        await client.end().catch(() => {});
      }
    },
    async scratch(prefix, parameters = {}) {
      const name = `${prefix}_${process.pid}_${Math.random().toString(16).slice(2, 10)}`;
      const onLeader = (sql: string, database = "postgres", values: readonly unknown[] = []) =>
        retried(
          async () => {
            const index = await leader();
            if (index < 0) throw new Error("no leader yet");
            const client = new pg.Client({ connectionString: nodeUrl(index, database), connectionTimeoutMillis: 5000 });
            client.on("error", () => {});
            await client.connect();
            try {
              return (await client.query(sql, [...values])).rows as Record<string, unknown>[];
            } finally {
              await client.end().catch(() => {});
            }
          },
          { attempts: 60 },
        );
      await onLeader(`CREATE DATABASE ${name}`);
      return {
        name,
        url: url(name, parameters),
        async exec(sql) {
          await onLeader(sql, name);
        },
        rows: (sql, values = []) => onLeader(sql, name, values),
        async close() {
          await onLeader(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        },
      };
    },
    stop: () => stopPatroniCluster(state),
  };
}

/**
 * Starts etcd and three Patroni nodes on free ports (and HAProxy when asked). One node bootstraps the cluster
 * (initdb), the others clone it with pg_basebackup and stream from it. Resolves once the cluster is healthy
 * (`waitHealthy`); on any failure it stops what it started and rejects with the logs.
 */
export async function startPatroniCluster(options: PatroniClusterOptions = {}): Promise<PatroniCluster> {
  const timeoutMs = options.timeoutMs ?? 120_000;
  const directory = createOwnedDirectory("tenon-patroni-", { outlive: options.outlive });
  const etcdCount = options.etcdMembers ?? 1;
  const ports = await freePorts(6 + etcdCount * 2 + 2);
  const state: PatroniClusterState = {
    directory,
    scope: `tenon-${process.pid}-${ports[0]}`,
    etcd: Array.from({ length: etcdCount }, (_, index) => ({
      name: `etcd${index + 1}`,
      clientPort: ports[6 + index * 2],
      peerPort: ports[7 + index * 2],
      pid: 0,
    })),
    nodes: [0, 1, 2].map((index) => ({
      name: `node${index + 1}`,
      port: ports[index * 2],
      restPort: ports[index * 2 + 1],
      dataDirectory: join(directory, `node${index + 1}`),
      pid: 0,
    })),
    haproxy: undefined,
    url: `postgres://postgres@${[0, 2, 4].map((index) => `127.0.0.1:${ports[index]}`).join(",")}/postgres`,
  };
  const cluster = patroniClusterOf(state);
  const servers: ServerProcess[] = [];
  try {
    const user = postgresUser();
    chownSync(directory, user.uid, user.gid);
    for (const member of state.etcd) {
      const server = startServer("etcd", etcdArguments(state, member), { outlive: options.outlive });
      member.pid = server.pid;
      servers.push(server);
    }
    await waitForEtcd(state, servers, timeoutMs);
    for (const node of state.nodes) {
      mkdirSync(join(directory, `${node.name}-log`));
      chownSync(join(directory, `${node.name}-log`), user.uid, user.gid);
      const file = join(directory, `${node.name}.yml`);
      writeFileSync(file, nodeConfiguration(state, node, options));
      chownSync(file, user.uid, user.gid);
      const server = startServer("patroni", [file], { outlive: options.outlive, uid: user.uid, gid: user.gid, cwd: directory });
      node.pid = server.pid;
      servers.push(server);
    }
    // Every synchronous standby the options ask for, not only the first: a suite that reads on replicas what it
    // has just committed (remote_apply) must not start while a replica is still asynchronous.
    await cluster.waitHealthy(timeoutMs, options.synchronousMode === false ? 0 : (options.synchronousNodeCount ?? 1));
    if (options.haproxy === true) {
      const proxy = { primaryPort: ports[6 + etcdCount * 2], replicaPort: ports[7 + etcdCount * 2] };
      const file = join(directory, "haproxy.cfg");
      writeFileSync(file, haproxyConfiguration(state, proxy));
      const server = startServer("haproxy", ["-db", "-f", file], { outlive: options.outlive });
      state.haproxy = { ...proxy, pid: server.pid };
      await waitForPrimaryThrough(proxy.primaryPort, server, timeoutMs);
    }
  } catch (error) {
    await stopPatroniCluster(state);
    throw error;
  }
  return cluster;
}

/** Waits until every etcd member answers its health check. */
async function waitForEtcd(state: PatroniClusterState, servers: readonly ServerProcess[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const member of state.etcd) {
    for (;;) {
      if (servers.some((server) => !server.running()))
        throw new Error(`etcd exited while starting; see ${state.directory}/${member.name}.log.`);
      try {
        const response = await fetch(`http://127.0.0.1:${member.clientPort}/health`, { signal: AbortSignal.timeout(1000) });
        if (response.ok && ((await response.json()) as { health?: string }).health === "true") break;
      } catch {
        // not yet
      }
      if (Date.now() > deadline) throw new Error(`etcd ${member.name} was not healthy within ${timeoutMs} ms.`);
      await sleep(100);
    }
  }
}

/** Waits until HAProxy's primary port passes a session through to the primary. */
async function waitForPrimaryThrough(port: number, server: ServerProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  while (Date.now() < deadline) {
    if (!server.running()) throw new Error(`HAProxy exited while starting (${await server.exited}).`);
    const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`, connectionTimeoutMillis: 1000 });
    client.on("error", () => {});
    try {
      await client.connect();
      const { rows } = await client.query<{ recovery: boolean }>("SELECT pg_is_in_recovery() AS recovery");
      if (!rows[0].recovery) return;
      last = "a replica answered on the primary port";
    } catch (error) {
      last = (error as Error).message;
    } finally {
      await client.end().catch(() => {});
    }
    await sleep(200);
  }
  throw new Error(`HAProxy did not pass sessions through to the primary within ${timeoutMs} ms (${last}).`);
}

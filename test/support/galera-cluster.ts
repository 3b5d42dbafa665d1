// A three-node MariaDB Galera cluster on 127.0.0.1 with HAProxy in front, for the scale-out tests and for
// `scripts/galera.sh up|down`. Every port is free at run time (never 3306 nor any fixed number), every data
// directory lives in one owned temporary directory (owned-directory.ts: a killed test run's cluster is cleaned
// up by its watchdog or the next run's sweep), the nodes run as the `mysql` OS user with rsync state transfer,
// and stopping the cluster stops every process it started and removes the directory.
import { spawnSync } from "node:child_process";
import { chownSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { userInfo } from "node:os";
import { join } from "node:path";
import { createConnection } from "mariadb";
import { freePorts } from "./free-port.js";
import { cleanUpDirectory, createOwnedDirectory } from "./owned-directory.js";
import { commandLineOf, namesDirectory, type ServerProcess, startServer, stopGroup } from "./server-processes.js";

/** The Galera 4 provider the Debian package `galera-4` installs. */
export const galeraProvider = "/usr/lib/galera/libgalera_smm.so";

/** What a node is, as the state file records it. */
export interface GaleraNodeState {
  /** `node1`, `node2`, `node3`. */
  readonly name: string;
  /** The client (mysqld) port. */
  readonly port: number;
  /** The group communication port (Galera's 4567). */
  readonly galeraPort: number;
  /** The incremental state transfer port (Galera's 4568). */
  readonly istPort: number;
  /** The rsync state snapshot transfer port (Galera's 4444). */
  readonly sstPort: number;
  /** The data directory. */
  readonly dataDirectory: string;
  /** The running process (group) id, or 0 while stopped. */
  pid: number;
}

/** Everything needed to find and stop a cluster again: written to the state file by `galera.sh up`. */
export interface GaleraClusterState {
  /** The mkdtemp directory holding the nodes' data directories, logs and the HAProxy configuration. */
  readonly directory: string;
  /** The nodes in start order; the first bootstrapped the cluster. */
  readonly nodes: GaleraNodeState[];
  /** The port HAProxy listens on (round robin over the nodes, TCP health checks every half second). */
  readonly haproxyPort: number;
  /** HAProxy's process id. */
  haproxyPid: number;
  /** `mariadb://root@127.0.0.1:<haproxyPort>/`: the whole cluster through HAProxy. */
  readonly url: string;
}

/** A running cluster started by this process. */
export interface GaleraCluster {
  /** Ports, directories and process ids. */
  readonly state: GaleraClusterState;
  /** `mariadb://root@127.0.0.1:<port>/<database>` through HAProxy. */
  url(database?: string): string;
  /** `mariadb://root@127.0.0.1:<port>/<database>` of one node, bypassing HAProxy. */
  nodeUrl(index: number, database?: string): string;
  /** Stops one node cleanly (SIGTERM, as a shutdown would); the others keep the cluster going. */
  stopNode(index: number): Promise<void>;
  /** Starts a stopped node again; it rejoins by incremental state transfer. Resolves once it is synced. */
  startNode(index: number): Promise<void>;
  /** Stops HAProxy and every node, and removes the directory. */
  stop(): Promise<void>;
}

/** Options of `startGaleraCluster`. */
export interface GaleraClusterOptions {
  /** Let the processes outlive this process (for `galera.sh up`; `galera.sh down` stops them). */
  readonly outlive?: boolean;
  /** Milliseconds to wait for each node to be synced (default 90 000). */
  readonly timeoutMs?: number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Answers why a Galera cluster cannot be started here, or undefined when it can. */
export function galeraUnavailable(): string | undefined {
  for (const program of ["mariadbd", "mariadb-install-db", "haproxy", "rsync"]) {
    if (spawnSync("sh", ["-c", `command -v ${program}`], { stdio: "ignore" }).status !== 0) return `${program} is not installed`;
  }
  if (spawnSync("test", ["-e", galeraProvider]).status !== 0) return `${galeraProvider} (galera-4) is not installed`;
  if (userInfo().uid !== 0) return "the nodes run as the mysql OS user, which needs root to start them";
  return undefined;
}

/** InnoDB and server settings for small, quick test nodes (about 150 MB each on disk). */
const smallNode = [
  "--no-defaults",
  "--innodb-buffer-pool-size=32M",
  "--innodb-log-file-size=16M",
  "--innodb-flush-log-at-trx-commit=2",
  "--performance-schema=OFF",
];

/**
 * Group communication timeouts for a shared, slow test machine: with Galera's defaults (a peer suspected
 * after 5 s, dropped after 15 s) a joiner on a machine loaded far beyond its cores was cut off half-way through
 * its state transfer and stayed "Joining" forever.
 */
const patientGroup = "evs.suspect_timeout=PT15S;evs.inactive_timeout=PT30S;evs.install_timeout=PT30S";

function nodeArguments(state: GaleraClusterState, node: GaleraNodeState, cluster: string, bootstrap: boolean): string[] {
  const members = state.nodes.map((each) => `127.0.0.1:${each.galeraPort}`).join(",");
  return [
    ...smallNode,
    `--datadir=${node.dataDirectory}`,
    `--tmpdir=${state.directory}`,
    `--socket=${join(state.directory, `${node.name}.sock`)}`,
    `--pid-file=${join(state.directory, `${node.name}.pid`)}`,
    `--log-error=${join(state.directory, `${node.name}.err`)}`,
    `--port=${node.port}`,
    "--bind-address=127.0.0.1",
    "--user=mysql",
    "--skip-name-resolve",
    "--skip-log-bin",
    "--binlog-format=ROW",
    "--default-storage-engine=InnoDB",
    "--innodb-autoinc-lock-mode=2",
    "--wsrep-on=ON",
    `--wsrep-provider=${galeraProvider}`,
    `--wsrep-cluster-name=${cluster}`,
    `--wsrep-cluster-address=gcomm://${members}`,
    `--wsrep-node-name=${node.name}`,
    `--wsrep-node-address=127.0.0.1:${node.galeraPort}`,
    `--wsrep-provider-options=gmcast.listen_addr=tcp://127.0.0.1:${node.galeraPort};ist.recv_addr=127.0.0.1:${node.istPort};gcache.size=32M;${patientGroup}`,
    "--wsrep-sst-method=rsync",
    `--wsrep-sst-receive-address=127.0.0.1:${node.sstPort}`,
    ...(bootstrap ? ["--wsrep-new-cluster"] : []),
  ];
}

function logOf(state: GaleraClusterState, node: GaleraNodeState): string {
  try {
    return readFileSync(join(state.directory, `${node.name}.err`), "utf8");
  } catch {
    return "";
  }
}

function tailOfLog(state: GaleraClusterState, node: GaleraNodeState): string {
  const log = logOf(state, node);
  return log === "" ? "(no log)" : log.split("\n").slice(-25).join("\n");
}

/** What a node's log says when its join has failed for good (it stays "Joining" without ever syncing). */
const failedJoin = /Failed to JOIN the cluster|Received SELF-LEAVE|\[ERROR\] Aborting/;

/**
 * Waits until a node answers on its client port and reports itself synced with the cluster. Fails at once
 * when the node exits or its log (the part written since `logFrom`) says that the join failed.
 */
async function waitSynced(
  state: GaleraClusterState,
  node: GaleraNodeState,
  server: ServerProcess,
  timeoutMs: number,
  logFrom: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  while (Date.now() < deadline) {
    if (!server.running()) throw new Error(`Galera ${node.name} exited while starting. Its log ends:\n${tailOfLog(state, node)}`);
    if (failedJoin.test(logOf(state, node).slice(logFrom)))
      throw new Error(`Galera ${node.name} failed to join the cluster. Its log ends:\n${tailOfLog(state, node)}`);
    try {
      const connection = await createConnection({ host: "127.0.0.1", port: node.port, user: "root", connectTimeout: 1000 });
      try {
        const rows = (await connection.query(
          "SELECT VARIABLE_NAME AS name, VARIABLE_VALUE AS value FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME IN ('WSREP_READY', 'WSREP_LOCAL_STATE_COMMENT')",
        )) as { name: string; value: string }[];
        const status = Object.fromEntries(rows.map((row) => [row.name.toUpperCase(), row.value]));
        if (status.WSREP_READY === "ON" && status.WSREP_LOCAL_STATE_COMMENT === "Synced") return;
        last = JSON.stringify(status);
      } finally {
        await connection.end().catch(() => {});
      }
    } catch (error) {
      last = (error as Error).message;
    }
    await sleep(250);
  }
  throw new Error(`Galera ${node.name} was not synced within ${timeoutMs} ms (${last}). Its log ends:\n${tailOfLog(state, node)}`);
}

function haproxyConfiguration(state: GaleraClusterState): string {
  // Round robin over all three nodes (every node takes writes). A stopped node fails its TCP check within
  // a second and its sessions are cut at once, so clients reconnect to the live nodes.
  return [
    "global",
    "  maxconn 2000",
    "defaults",
    "  mode tcp",
    "  timeout connect 2s",
    "  timeout client 1h",
    "  timeout server 1h",
    "  timeout check 1s",
    "listen galera",
    `  bind 127.0.0.1:${state.haproxyPort}`,
    "  balance roundrobin",
    "  default-server inter 500ms fall 2 rise 2 on-marked-down shutdown-sessions",
    ...state.nodes.map((node) => `  server ${node.name} 127.0.0.1:${node.port} check`),
    "",
  ].join("\n");
}

/** True when `pid` is a process started for the cluster in `directory` (its command line names it): a pid read from an old state file may belong to anything by now. */
function runsFor(pid: number, directory: string): boolean {
  return pid !== 0 && namesDirectory(commandLineOf(pid), directory);
}

/**
 * Stops what a state describes (this process's or another's), and removes its directory. Only processes
 * whose command line names the cluster's directory are signalled: first HAProxy and the nodes cleanly (in
 * reverse order, so that the bootstrap node goes last and the others leave a cluster cleanly), then whatever
 * else still runs for it (a state transfer's rsync daemon, a watchdog).
 */
export async function stopGaleraCluster(state: GaleraClusterState): Promise<void> {
  try {
    if (runsFor(state.haproxyPid, state.directory)) await stopGroup(state.haproxyPid, 2000);
    state.haproxyPid = 0;
    for (const node of [...state.nodes].reverse()) {
      if (runsFor(node.pid, state.directory)) await stopGroup(node.pid, 15_000);
      node.pid = 0;
    }
  } finally {
    cleanUpDirectory(state.directory);
  }
}

/**
 * Starts three Galera nodes and HAProxy in front of them on free ports. The first node bootstraps the
 * cluster from a fresh `mariadb-install-db` (root@127.0.0.1 without a password); the other two join it by
 * rsync state transfer. Resolves once all three are synced and HAProxy listens; on any failure it stops
 * what it started and rejects with the failing node's log.
 */
export async function startGaleraCluster(options: GaleraClusterOptions = {}): Promise<GaleraCluster> {
  const timeoutMs = options.timeoutMs ?? 90_000;
  const directory = createOwnedDirectory("tenon-galera-", { outlive: options.outlive });
  const ports = await freePorts(13);
  const nodes: GaleraNodeState[] = [0, 1, 2].map((index) => ({
    name: `node${index + 1}`,
    port: ports[index * 4],
    galeraPort: ports[index * 4 + 1],
    istPort: ports[index * 4 + 2],
    sstPort: ports[index * 4 + 3],
    dataDirectory: join(directory, `node${index + 1}`),
    pid: 0,
  }));
  const state: GaleraClusterState = {
    directory,
    nodes,
    haproxyPort: ports[12],
    haproxyPid: 0,
    url: `mariadb://root@127.0.0.1:${ports[12]}/`,
  };
  const clusterName = `tenon-${process.pid}-${ports[12]}`;
  const mysql = spawnSync("id", ["-u", "mysql"], { encoding: "utf8" });
  const mysqlUid = Number(mysql.stdout.trim());
  const mysqlGid = Number(spawnSync("id", ["-g", "mysql"], { encoding: "utf8" }).stdout.trim());
  const servers = new Map<GaleraNodeState, ServerProcess>();

  const startNode = async (node: GaleraNodeState, bootstrap: boolean): Promise<void> => {
    const logFrom = logOf(state, node).length;
    const server = startServer("mariadbd", nodeArguments(state, node, clusterName, bootstrap), { outlive: options.outlive });
    node.pid = server.pid;
    servers.set(node, server);
    await waitSynced(state, node, server, timeoutMs, logFrom);
  };

  try {
    if (mysql.status !== 0) throw new Error("There is no mysql OS user to run the Galera nodes as.");
    chownSync(directory, mysqlUid, mysqlGid);
    for (const node of nodes) {
      mkdirSync(node.dataDirectory);
      chownSync(node.dataDirectory, mysqlUid, mysqlGid);
    }
    const install = spawnSync(
      "mariadb-install-db",
      // Its own tmpdir: bootstraps running at the same time in /tmp (other test runs) removed each other's temporary tables.
      [
        ...smallNode,
        `--datadir=${nodes[0].dataDirectory}`,
        `--tmpdir=${directory}`,
        "--user=mysql",
        "--auth-root-authentication-method=normal",
        "--skip-test-db",
      ],
      { encoding: "utf8" },
    );
    if (install.status !== 0) throw new Error(`mariadb-install-db failed:\n${install.stdout}\n${install.stderr}`);
    await startNode(nodes[0], true);
    // One joiner at a time: the bootstrap node is the only donor, and it serves one transfer at a time.
    await startNode(nodes[1], false);
    await startNode(nodes[2], false);
    const configuration = join(directory, "haproxy.cfg");
    writeFileSync(configuration, haproxyConfiguration(state));
    const haproxy = startServer("haproxy", ["-db", "-f", configuration], { outlive: options.outlive });
    state.haproxyPid = haproxy.pid;
    await waitListening(state.haproxyPort, haproxy, timeoutMs);
  } catch (error) {
    await stopGaleraCluster(state);
    throw error;
  }

  const urlOf = (port: number, database = ""): string => `mariadb://root@127.0.0.1:${port}/${database}`;
  return {
    state,
    url: (database) => urlOf(state.haproxyPort, database),
    nodeUrl: (index, database) => urlOf(nodes[index].port, database),
    async stopNode(index) {
      const node = nodes[index];
      if (node.pid !== 0) await stopGroup(node.pid, 30_000);
      node.pid = 0;
    },
    async startNode(index) {
      const node = nodes[index];
      if (node.pid !== 0) return;
      try {
        await startNode(node, false);
      } catch (error) {
        // A joiner cut off by the group on a machine far busier than its cores (see patientGroup) is killed and
        // started once more: it then receives a full state transfer. The log keeps both attempts.
        console.error(`Galera ${node.name} is started a second time: ${(error as Error).message.split("\n")[0]}`);
        if (node.pid !== 0) await stopGroup(node.pid, 1000);
        node.pid = 0;
        await startNode(node, false);
      }
    },
    stop: () => stopGaleraCluster(state),
  };
}

/** Waits until HAProxy accepts a MariaDB session through to a node. */
async function waitListening(port: number, server: ServerProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  while (Date.now() < deadline) {
    if (!server.running()) throw new Error(`HAProxy exited while starting (${await server.exited}).`);
    try {
      const connection = await createConnection({ host: "127.0.0.1", port, user: "root", connectTimeout: 1000 });
      await connection.end();
      return;
    } catch (error) {
      last = (error as Error).message;
    }
    await sleep(200);
  }
  throw new Error(`HAProxy did not pass sessions through within ${timeoutMs} ms (${last}).`);
}

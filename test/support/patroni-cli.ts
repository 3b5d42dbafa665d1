// The command behind `scripts/patroni.sh up|down|status`: starts a Patroni cluster of three PostgreSQL 15 nodes
// (etcd for its consensus, HAProxy in front) on free ports and leaves it running, writing its ports and process
// ids to a state file, or stops what that file describes.
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type PatroniClusterState,
  patroniClusterOf,
  patroniUnavailable,
  startPatroniCluster,
  stopPatroniCluster,
} from "./patroni-cluster.js";
import { processAlive } from "./server-processes.js";

const stateFile = process.env.PATRONI_STATE ?? join(tmpdir(), "tenon-patroni.json");

function readState(): PatroniClusterState | undefined {
  if (!existsSync(stateFile)) return undefined;
  return JSON.parse(readFileSync(stateFile, "utf8")) as PatroniClusterState;
}

async function describe(state: PatroniClusterState): Promise<string> {
  const leader = await patroniClusterOf(state).leader();
  const lines = [`every node   ${state.url}`];
  if (state.haproxy !== undefined) {
    const up = processAlive(state.haproxy.pid) ? "" : ", not running";
    lines.push(
      `HAProxy      primary postgres://postgres@127.0.0.1:${state.haproxy.primaryPort}/postgres, replicas postgres://postgres@127.0.0.1:${state.haproxy.replicaPort}/postgres  (pid ${state.haproxy.pid}${up})`,
    );
  }
  state.nodes.forEach((node, index) => {
    const running = node.pid !== 0 && processAlive(node.pid);
    const role = index === leader ? "leader" : "replica";
    lines.push(
      `${node.name.padEnd(12)} postgres://postgres@127.0.0.1:${node.port}/postgres  REST http://127.0.0.1:${node.restPort}/  ${role}  (Patroni pid ${node.pid}${running ? "" : ", not running"})`,
    );
  });
  for (const member of state.etcd)
    lines.push(
      `${member.name.padEnd(12)} http://127.0.0.1:${member.clientPort}  (pid ${member.pid}${processAlive(member.pid) ? "" : ", not running"})`,
    );
  lines.push(`directory    ${state.directory}`, `state file   ${stateFile}`);
  return lines.join("\n");
}

async function main(command: string | undefined, flags: readonly string[]): Promise<number> {
  const state = readState();
  if (command === "up") {
    if (state?.nodes.some((node) => node.pid !== 0 && processAlive(node.pid))) {
      console.error(`A cluster is already running (run scripts/patroni.sh down first):\n${await describe(state)}`);
      return 1;
    }
    const haproxy = !flags.includes("--no-haproxy");
    const unavailable = patroniUnavailable({ haproxy });
    if (unavailable !== undefined) {
      console.error(`Cannot start a Patroni cluster: ${unavailable}.`);
      return 1;
    }
    const started = Date.now();
    const cluster = await startPatroniCluster({
      outlive: true,
      haproxy,
      etcdMembers: flags.includes("--etcd3") ? 3 : 1,
      synchronousMode: !flags.includes("--async"),
    });
    writeFileSync(stateFile, `${JSON.stringify(cluster.state, null, 2)}\n`);
    console.log(`Patroni cluster of three nodes up in ${((Date.now() - started) / 1000).toFixed(1)} s:\n${await describe(cluster.state)}`);
    console.log(
      `\nTry the demo on it, reads spread over the replicas:\n  DATABASE_URL='${cluster.url("demo", { replicaReads: "true" })}' npm start\n(create the database first: psql '${cluster.nodeUrl(await cluster.leader())}' -c 'CREATE DATABASE demo')`,
    );
    return 0;
  }
  if (command === "down") {
    if (state === undefined) {
      console.log(`No cluster recorded in ${stateFile}.`);
      return 0;
    }
    await stopPatroniCluster(state);
    rmSync(stateFile, { force: true });
    console.log("Patroni cluster, etcd and HAProxy stopped; their directory is removed.");
    return 0;
  }
  if (command === "status") {
    console.log(state === undefined ? `No cluster recorded in ${stateFile}.` : await describe(state));
    return 0;
  }
  console.error(
    "Usage: scripts/patroni.sh up [--no-haproxy] [--etcd3] [--async] | down | status   (PATRONI_STATE=<file> chooses the state file)",
  );
  return 2;
}

process.exitCode = await main(process.argv[2], process.argv.slice(3));

// The command behind `scripts/galera.sh up|down|status`: starts a three-node Galera cluster with HAProxy in
// front on free ports and leaves it running (writing its ports and process ids to a state file), or stops
// what that file describes.
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type GaleraClusterState, galeraUnavailable, startGaleraCluster, stopGaleraCluster } from "./galera-cluster.js";
import { processAlive } from "./server-processes.js";

const stateFile = process.env.GALERA_STATE ?? join(tmpdir(), "tenon-galera.json");

function readState(): GaleraClusterState | undefined {
  if (!existsSync(stateFile)) return undefined;
  return JSON.parse(readFileSync(stateFile, "utf8")) as GaleraClusterState;
}

function describe(state: GaleraClusterState): string {
  const lines = [`HAProxy      ${state.url}  (pid ${state.haproxyPid}${processAlive(state.haproxyPid) ? "" : ", not running"})`];
  for (const node of state.nodes) {
    const running = node.pid !== 0 && processAlive(node.pid);
    lines.push(
      `${node.name.padEnd(12)} mariadb://root@127.0.0.1:${node.port}/  galera ${node.galeraPort}, IST ${node.istPort}, SST ${node.sstPort}  (pid ${node.pid}${running ? "" : ", not running"})`,
    );
  }
  lines.push(`directory    ${state.directory}`, `state file   ${stateFile}`);
  return lines.join("\n");
}

async function main(command: string | undefined): Promise<number> {
  const state = readState();
  if (command === "up") {
    if (state?.nodes.some((node) => node.pid !== 0 && processAlive(node.pid))) {
      console.error(`A cluster is already running (run scripts/galera.sh down first):\n${describe(state)}`);
      return 1;
    }
    const unavailable = galeraUnavailable();
    if (unavailable !== undefined) {
      console.error(`Cannot start a Galera cluster: ${unavailable}.`);
      return 1;
    }
    const started = Date.now();
    const cluster = await startGaleraCluster({ outlive: true });
    writeFileSync(stateFile, `${JSON.stringify(cluster.state, null, 2)}\n`);
    console.log(`Galera cluster of three nodes up in ${((Date.now() - started) / 1000).toFixed(1)} s:\n${describe(cluster.state)}`);
    console.log(
      `\nTry the demo on it:\n  DATABASE_URL=${cluster.url("demo")} npm start\n(create the database first: mariadb -h 127.0.0.1 -P ${cluster.state.haproxyPort} -u root -e 'CREATE DATABASE demo')`,
    );
    return 0;
  }
  if (command === "down") {
    if (state === undefined) {
      console.log(`No cluster recorded in ${stateFile}.`);
      return 0;
    }
    await stopGaleraCluster(state);
    rmSync(stateFile, { force: true });
    console.log("Galera cluster and HAProxy stopped; their directory is removed.");
    return 0;
  }
  if (command === "status") {
    console.log(state === undefined ? `No cluster recorded in ${stateFile}.` : describe(state));
    return 0;
  }
  console.error("Usage: scripts/galera.sh up|down|status   (GALERA_STATE=<file> chooses the state file)");
  return 2;
}

process.exitCode = await main(process.argv[2]);

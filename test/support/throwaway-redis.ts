// A Redis server of a test's own (throwaway-server.ts): `redis-server` in the foreground on a free port, its
// directory the owned temporary one, nothing saved to disk, as the `redis` OS user when this process is root.
// The test may kill it (SIGKILL) and start it again on the same port; the shared Redis on 6379 is never touched.
import { execFile } from "node:child_process";
import { connect } from "node:net";
import { promisify } from "node:util";
import { startThrowawayServer, type ThrowawayEngine, type ThrowawayServer } from "./throwaway-server.js";

const run = promisify(execFile);

/** Where redis-server is (override with TENON_REDIS_SERVER). */
export const redisServerBinary = process.env.TENON_REDIS_SERVER ?? "redis-server";

/** A throwaway Redis; `url` is `redis://127.0.0.1:<port>`. */
export type ThrowawayRedis = ThrowawayServer;

/** Why a throwaway Redis cannot be started here, or undefined when it can. */
export async function throwawayRedisUnavailable(): Promise<string | undefined> {
  try {
    await run(redisServerBinary, ["--version"]);
    return undefined;
  } catch (error) {
    return `redis-server cannot be run (${(error as Error).message})`;
  }
}

/** Resolves when a PING on `port` answers PONG. */
function ping(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let text = "";
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error("no answer to PING"));
    }, 1000);
    socket.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("latin1");
      if (!text.includes("\r\n")) return;
      clearTimeout(timer);
      socket.destroy();
      if (text.startsWith("+PONG")) resolve();
      else reject(new Error(`PING answered ${text.trim()}`));
    });
  });
}

const redisEngine: ThrowawayEngine = {
  name: "Redis",
  prefix: "tenon-redis-",
  osUser: "redis",
  logFile: "server.log",
  async initialize() {
    // Nothing to create: the server keeps its data in memory only.
  },
  command: (directory, _data, port, as) => ({
    command: redisServerBinary,
    args: [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--dir",
      directory,
      "--logfile",
      `${directory}/server.log`,
      "--save",
      "",
      "--appendonly",
      "no",
      "--daemonize",
      "no",
      // DEBUG SLEEP makes a slow Redis for the tests (from this machine only).
      "--enable-debug-command",
      "local",
    ],
    runAs: as,
  }),
  // SIGTERM: a clean shutdown; SIGKILL: the server gone at once, as a crash or an OOM kill.
  signals: { fast: "SIGTERM", immediate: "SIGKILL" },
  probe: ping,
  url: (port) => `redis://127.0.0.1:${port}`,
};

/** Starts a Redis server on a free port with a directory of its own. */
export function startThrowawayRedis(): Promise<ThrowawayRedis> {
  return startThrowawayServer(redisEngine);
}

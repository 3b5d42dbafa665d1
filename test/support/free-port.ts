// Free TCP ports for the servers the tests start: the OS picks them (listen on port 0), never a fixed number,
// because other suites and other people's runs share this machine.
import { createServer } from "node:net";

/** One port on 127.0.0.1 that nothing listened on a moment ago (bind to port 0, read it, release it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** `count` distinct free ports (asked while the earlier ones are released, so the OS could hand one out twice). */
export async function freePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

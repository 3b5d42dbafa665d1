// A port for a server the test starts on a fixed address (HAProxy, a demo process that must come back on the
// same port): the OS picks a free one, which is released at once for the caller to bind.
import { createServer } from "node:net";

/** A free TCP port on 127.0.0.1 (bound by the OS, then released). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", resolve);
  });
  const address = probe.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

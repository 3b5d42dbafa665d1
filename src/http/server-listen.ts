import type { Server } from "node:http";

/** Listens on one address; answers the port bound. @internal */
export function listen(server: Server, host: string, port: number, ipv6Only: boolean): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => reject(error);
    server.once("error", onError);
    server.listen({ host, port, ipv6Only }, () => {
      server.off("error", onError);
      const address = server.address();
      resolve(typeof address === "object" && address !== null ? address.port : port);
    });
  });
}

/** Stops a server listening (nothing when it does not). @internal */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close(() => resolve());
  });
}

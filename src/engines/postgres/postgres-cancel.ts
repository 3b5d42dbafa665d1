import { connect, type Socket } from "node:net";

/** What a `pg` client knows of its backend after connecting (public fields of `pg.Client`, untyped in @types/pg). */
export interface BackendKey {
  readonly host: string;
  readonly port: number;
  readonly processID: number | null;
  readonly secretKey: number | null;
}

/** The protocol's CancelRequest code (1234 << 16 | 5678). */
const cancelRequestCode = 80877102;
/** How long a cancel request may take before it is given up (the statement timeout still applies). */
const cancelTimeoutMs = 5000;

/**
 * Sends PostgreSQL's cancel request for the statement a backend is running: a new connection to the same
 * server carrying only the backend's process id and secret key (no login, no pool slot), which the server
 * answers by closing it. The backend's statement then fails with SQLSTATE 57014.
 */
export function sendCancelRequest(key: BackendKey): Promise<void> {
  const { processID, secretKey } = key;
  if (processID === null || secretKey === null) return Promise.resolve();
  const packet = Buffer.alloc(16);
  packet.writeInt32BE(16, 0);
  packet.writeInt32BE(cancelRequestCode, 4);
  packet.writeInt32BE(processID, 8);
  packet.writeInt32BE(secretKey, 12);
  return new Promise((resolve) => {
    const socket: Socket = key.host.startsWith("/") ? connect(`${key.host}/.s.PGSQL.${key.port}`) : connect(key.port, key.host);
    const done = (): void => {
      socket.destroy();
      resolve();
    };
    socket.setTimeout(cancelTimeoutMs, done);
    socket.once("error", done);
    socket.once("close", done);
    socket.once("connect", () => socket.end(packet));
  });
}

// A webhook receiver on a real socket for the tests: it records every delivery attempt (headers and raw body),
// answers 204 while accepting or 500 while failing, and can go down (its port refuses connections) and come
// back on the same port.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

/** One attempt as the receiver saw it. */
export interface ReceivedAttempt {
  /** `webhook-id`. */
  readonly id: string;
  /** `webhook-timestamp`. */
  readonly timestamp: string;
  /** `webhook-signature`. */
  readonly signature: string;
  /** `tenon-subscription`. */
  readonly subscription: string;
  /** `tenon-attempt`. */
  readonly attempt: number;
  /** `content-type`. */
  readonly contentType: string;
  /** The raw body. */
  readonly body: string;
  /** The body parsed. */
  readonly record: { entity: string; key: number; action: string; version: number | null; data?: Record<string, unknown> };
  /** What the receiver answered. */
  readonly status: number;
  /** Whether the Standard Webhooks reference library accepted the signature (with the receiver's secret). */
  readonly verified: boolean;
}

/** A receiver listening on 127.0.0.1. */
export class WebhookReceiver {
  /** Every attempt, in arrival order. */
  readonly attempts: ReceivedAttempt[] = [];
  /** 204 while true, 500 while false. */
  accepting = true;
  readonly #secret: string;
  #server: Server;
  #port = 0;
  readonly #waiters: (() => void)[] = [];

  private constructor(secret: string) {
    this.#secret = secret;
    this.#server = this.#create();
  }

  /** Starts a receiver that checks signatures against `secret`. */
  static async start(secret: string, port = 0): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver(secret);
    await receiver.#listen(port);
    return receiver;
  }

  /** The URL to subscribe. */
  get url(): string {
    return `http://127.0.0.1:${this.#port}/hook`;
  }

  /** The attempts it accepted. */
  accepted(): ReceivedAttempt[] {
    return this.attempts.filter((attempt) => attempt.status === 204);
  }

  /** Resolves once `condition` holds (checked at each attempt), or rejects after `timeoutMs`. */
  waitUntil(condition: () => boolean, timeoutMs = 60_000, what = "the deliveries"): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${what} did not arrive within ${timeoutMs} ms (${this.attempts.length} attempts)`)),
        timeoutMs,
      );
      const check = (): void => {
        if (condition()) {
          clearTimeout(timer);
          resolve();
        } else this.#waiters.push(check);
      };
      check();
    });
  }

  /** Goes down: the port refuses connections until `up`. */
  async down(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }

  /** Comes back on the same port. */
  async up(): Promise<void> {
    this.#server = this.#create();
    await this.#listen(this.#port);
  }

  /** Stops for good. */
  stop(): Promise<void> {
    return this.down();
  }

  #create(): Server {
    const server = createServer((request, response) => this.#receive(request, response));
    server.keepAliveTimeout = 1_000;
    return server;
  }

  #listen(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#server.once("error", reject);
      this.#server.listen(port, "127.0.0.1", () => {
        this.#server.off("error", reject);
        this.#port = (this.#server.address() as AddressInfo).port;
        resolve();
      });
    });
  }

  #receive(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const header = (name: string): string => String(request.headers[name] ?? "");
      let verified = false;
      try {
        new Webhook(this.#secret).verify(body, {
          "webhook-id": header("webhook-id"),
          "webhook-timestamp": header("webhook-timestamp"),
          "webhook-signature": header("webhook-signature"),
        });
        verified = true;
      } catch {
        verified = false;
      }
      const status = this.accepting ? 204 : 500;
      this.attempts.push({
        id: header("webhook-id"),
        timestamp: header("webhook-timestamp"),
        signature: header("webhook-signature"),
        subscription: header("tenon-subscription"),
        attempt: Number(header("tenon-attempt")),
        contentType: header("content-type"),
        body,
        record: JSON.parse(body),
        status,
        verified,
      });
      response.writeHead(status).end();
      for (const waiter of this.#waiters.splice(0)) waiter();
    });
  }
}

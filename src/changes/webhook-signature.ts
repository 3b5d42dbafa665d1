import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { WebhookConfigurationError } from "../errors.js";
import { ChangeMessages } from "./change-messages.js";

const secretPrefix = "whsec_";
const base64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The key of a secret `whsec_<base64 of 24 to 64 bytes>`; undefined when it is not one. @internal */
export function decodeWebhookSecret(secret: string): Uint8Array | undefined {
  if (!secret.startsWith(secretPrefix)) return undefined;
  const text = secret.slice(secretPrefix.length);
  if (text.length % 4 !== 0 || !base64.test(text)) return undefined;
  const key = Buffer.from(text, "base64");
  return key.length >= 24 && key.length <= 64 ? key : undefined;
}

/** The headers of a webhook delivery that its signature covers, as a receiver reads them. */
export interface WebhookSignedHeaders {
  /** `webhook-id`: the event's id (its position in the change log; the same on every retry and replay). */
  readonly id: string;
  /** `webhook-timestamp`: when the attempt was sent, in whole seconds since the epoch. */
  readonly timestamp: string;
  /** `webhook-signature`: one or more `v1,<base64>` separated by spaces. */
  readonly signature: string;
}

/**
 * The signatures of webhook deliveries, as the Standard Webhooks specification (1.0) defines them, so that
 * any of its libraries verifies them: `webhook-signature` is `v1,` and the base64 of the HMAC-SHA256, keyed with
 * the bytes of the secret after `whsec_`, of `<webhook-id>.<webhook-timestamp>.<body>`.
 */
export class WebhookSignature {
  private constructor() {}

  /** A new random secret: `whsec_` and the base64 of 32 random bytes. */
  static newSecret(): string {
    return secretPrefix + randomBytes(32).toString("base64");
  }

  /** The `webhook-signature` header of a body sent with `id` at `timestamp` (seconds since the epoch). */
  static sign(secret: string, id: string, timestamp: number, body: string): string {
    const key = decodeWebhookSecret(secret);
    if (key === undefined) throw new WebhookConfigurationError("", "secret", ChangeMessages.secretMalformed);
    return signWith(key, id, timestamp, body);
  }

  /**
   * Whether a delivery is authentic: one of the `v1` signatures matches (compared in constant time) and its
   * timestamp is within `toleranceSeconds` (default 300) of `now` (default the clock), so that a captured
   * delivery cannot be sent again later. Check the raw body, before any JSON parsing.
   */
  static verify(secret: string, headers: WebhookSignedHeaders, body: string, toleranceSeconds = 300, now = Date.now()): boolean {
    const key = decodeWebhookSecret(secret);
    if (key === undefined || !/^[0-9]{1,12}$/.test(headers.timestamp)) return false;
    const timestamp = Number(headers.timestamp);
    if (Math.abs(now / 1000 - timestamp) > toleranceSeconds) return false;
    const expected = Buffer.from(signWith(key, headers.id, timestamp, body).slice(3), "base64");
    for (const entry of headers.signature.split(" ")) {
      if (!entry.startsWith("v1,")) continue;
      const given = Buffer.from(entry.slice(3), "base64");
      if (given.length === expected.length && timingSafeEqual(given, expected)) return true;
    }
    return false;
  }
}

/** The signature of a delivery with the secret's key already decoded. @internal */
export function signWith(key: Uint8Array, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
}

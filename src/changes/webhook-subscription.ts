import { WebhookConfigurationError } from "../errors.js";
import type { PolicyCaller } from "../policy/caller.js";
import { ChangeMessages } from "./change-messages.js";
import { decodeWebhookSecret } from "./webhook-signature.js";

/**
 * A webhook subscription: every committed change of its entities (and of its tenant, when it names one) is
 * POSTed to `url` as a change record, signed with `secret` (docs/changes.md says how a receiver checks it).
 * A failed delivery is retried with exponential backoff and jitter; after `maxAttempts` failures the event goes
 * to the dead-letter table, and the key's later events wait there behind it until a replay.
 */
export interface WebhookSubscription {
  /** Its name: 1 to 100 letters, digits, `.`, `_` or `-`, starting with a letter or digit; unique. */
  readonly name: string;
  /** Where the changes are POSTed: an absolute `http:` or `https:` URL without credentials or fragment. */
  readonly url: string;
  /** The signing secret: `whsec_` and the base64 of 24 to 64 random bytes (`WebhookSignature.newSecret()`). */
  readonly secret: string;
  /** The class names of the entities whose changes it receives (each one of the `feeds`); default every feed. */
  readonly entities?: readonly string[];
  /** Only the changes of this tenant (and of entities without a tenant); default every tenant's. */
  readonly tenant?: string;
  /**
   * The caller whose entities' `@Policy`s decide what the subscription receives (docs/policies.md): only the changes
   * of rows its rules grant it for `changes`, without the members it may not read. Default none: every change of its
   * entities (and tenant), as the application configured.
   */
  readonly caller?: PolicyCaller;
  /** Attempts of one event before it goes to the dead-letter table, 1 to 100; default 8. */
  readonly maxAttempts?: number;
  /** The delay before the first retry, in milliseconds (doubled at each further one, with jitter); default 1,000. */
  readonly initialDelayMs?: number;
  /** The longest delay between two attempts, in milliseconds; default 300,000 (5 minutes). */
  readonly maxDelayMs?: number;
  /** How long one attempt may take, in milliseconds, before it counts as failed; default 10,000. */
  readonly timeoutMs?: number;
  /** How many keys are delivered at once (each key's events one after another, in order), 1 to 64; default 4. */
  readonly concurrency?: number;
}

/** A subscription with every default filled in and every rule checked. @internal */
export interface CheckedSubscription {
  readonly name: string;
  readonly url: string;
  readonly secret: string;
  readonly key: Uint8Array;
  readonly entities: ReadonlySet<string>;
  readonly tenant: string | undefined;
  readonly caller?: PolicyCaller;
  readonly maxAttempts: number;
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  readonly timeoutMs: number;
  readonly concurrency: number;
}

const namePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
const fields = new Set([
  "name",
  "url",
  "secret",
  "entities",
  "tenant",
  "caller",
  "maxAttempts",
  "initialDelayMs",
  "maxDelayMs",
  "timeoutMs",
  "concurrency",
]);

/**
 * Checks a subscription (from code, or parsed from the stored JSON) against every rule and fills in the
 * defaults; `feeds` are the class names of the entities that may be named. Throws `WebhookConfigurationError`.
 * @internal
 */
export function checkSubscription(input: unknown, feeds: ReadonlySet<string>): CheckedSubscription {
  const given = typeof input === "object" && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : undefined;
  const rawName = given?.name;
  const name = typeof rawName === "string" ? rawName : String(rawName);
  const fail = (field: string, message: string): never => {
    throw new WebhookConfigurationError(name, field, message);
  };
  if (given === undefined) return fail("", ChangeMessages.notAnObject(name));
  if (typeof rawName !== "string" || !namePattern.test(rawName)) fail("name", ChangeMessages.badSubscriptionName(name));
  for (const field of Object.keys(given)) if (!fields.has(field)) fail(field, ChangeMessages.unknownField(name, field));
  const url = checkUrl(given.url) ?? fail("url", ChangeMessages.badUrl(name));
  const key =
    (typeof given.secret === "string" ? decodeWebhookSecret(given.secret) : undefined) ?? fail("secret", ChangeMessages.badSecret(name));
  let entities: ReadonlySet<string> = feeds;
  if (given.entities !== undefined) {
    const list = given.entities;
    if (!Array.isArray(list) || list.length === 0 || list.some((each) => typeof each !== "string") || new Set(list).size !== list.length)
      fail("entities", ChangeMessages.badEntities(name));
    for (const entity of list as string[]) if (!feeds.has(entity)) fail("entities", ChangeMessages.unknownEntity(name, entity));
    entities = new Set(list as string[]);
  }
  const tenant = given.tenant;
  if (tenant !== undefined && (typeof tenant !== "string" || tenant.length === 0 || tenant.length > 100))
    fail("tenant", ChangeMessages.badTenant(name));
  const caller = given.caller === undefined ? undefined : (checkCaller(given.caller) ?? fail("caller", ChangeMessages.badCaller(name)));
  const number = (field: string, fallback: number, low: number, high: number): number => {
    const value = given[field] ?? fallback;
    if (typeof value !== "number" || !Number.isInteger(value) || value < low || value > high)
      fail(field, ChangeMessages.badNumber(name, field, low, high));
    return value as number;
  };
  const checked: CheckedSubscription = {
    name,
    url,
    secret: given.secret as string,
    key,
    entities,
    tenant: tenant as string | undefined,
    ...(caller !== undefined ? { caller } : {}),
    maxAttempts: number("maxAttempts", 8, 1, 100),
    initialDelayMs: number("initialDelayMs", 1_000, 1, 3_600_000),
    maxDelayMs: number("maxDelayMs", 300_000, 1, 86_400_000),
    timeoutMs: number("timeoutMs", 10_000, 1, 300_000),
    concurrency: number("concurrency", 4, 1, 64),
  };
  if (checked.maxDelayMs < checked.initialDelayMs) fail("maxDelayMs", ChangeMessages.delaysOutOfOrder(name));
  return checked;
}

/** A caller of the shape a policy reads (`PolicyCaller`), frozen; undefined for anything else. */
function checkCaller(value: unknown): PolicyCaller | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const { username, areas, tenant = "", claims = {} } = value as Record<string, unknown>;
  if (typeof username !== "string" || typeof tenant !== "string") return undefined;
  if (!Array.isArray(areas) || areas.some((area) => typeof area !== "string")) return undefined;
  if (typeof claims !== "object" || claims === null || Array.isArray(claims)) return undefined;
  return Object.freeze({ username, areas: Object.freeze([...(areas as string[])]), tenant, claims: Object.freeze({ ...claims }) });
}

function checkUrl(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  if (url.username !== "" || url.password !== "" || url.hash !== "" || value.includes("#")) return undefined;
  return url.href;
}

/** The subscription as stored in the database: every field but the name, as JSON. @internal */
export function storedDefinition(subscription: WebhookSubscription): string {
  const { name: _name, ...definition } = subscription;
  return JSON.stringify(definition);
}

/**
 * The delay before attempt `failed + 1`, after `failed` failed attempts: the initial delay doubled for each
 * further failure, at most the longest delay, then jittered to between half and all of it (so that many
 * failed deliveries do not all come back at once). @internal
 */
export function retryDelay(subscription: CheckedSubscription, failed: number, random: () => number = Math.random): number {
  const base = Math.min(subscription.maxDelayMs, subscription.initialDelayMs * 2 ** Math.min(failed - 1, 40));
  return Math.round(base / 2 + (random() * base) / 2);
}

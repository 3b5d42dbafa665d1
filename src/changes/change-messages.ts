/** Every text of the change feed's webhooks, in one place. */
export const ChangeMessages = {
  badSubscriptionName: (name: string) =>
    `The webhook subscription name "${name}" must be 1 to 100 letters, digits, ".", "_" or "-", starting with a letter or digit.`,
  duplicateSubscription: (name: string) => `Two webhook subscriptions are named "${name}".`,
  badUrl: (name: string) => `The webhook subscription "${name}" needs an absolute http: or https: URL without credentials or fragment.`,
  badSecret: (name: string) =>
    `The webhook subscription "${name}" needs a secret "whsec_" followed by the base64 of 24 to 64 random bytes (WebhookSignature.newSecret() makes one).`,
  secretMalformed: 'The secret is no "whsec_" secret of 24 to 64 bytes.',
  noFeeds: "ChangeWebhooks needs at least one entity class with @ChangeFeed in feeds.",
  notAFeed: (entity: string) => `ChangeWebhooks: ${entity} in feeds has no @ChangeFeed.`,
  unknownEntity: (name: string, entity: string) =>
    `The webhook subscription "${name}" names the entity "${entity}", which is none of the feeds of its ChangeWebhooks.`,
  badEntities: (name: string) => `The webhook subscription "${name}" needs entities as a non-empty list of distinct entity class names.`,
  badTenant: (name: string) => `The webhook subscription "${name}" needs a tenant of 1 to 100 characters, or none.`,
  badCaller: (name: string) =>
    `The webhook subscription "${name}" needs a caller of a user name, a list of areas, a tenant and an object of claims, or none.`,
  badNumber: (name: string, field: string, low: number, high: number) =>
    `The webhook subscription "${name}" needs ${field} as a whole number from ${low} to ${high}.`,
  delaysOutOfOrder: (name: string) => `The webhook subscription "${name}" needs maxDelayMs at least as large as initialDelayMs.`,
  unknownField: (name: string, field: string) => `The webhook subscription "${name}" has the unknown field "${field}".`,
  notAnObject: (name: string) => `The webhook subscription "${name}" is not an object.`,
  badOption: (option: string, low: number, high: number) => `ChangeWebhooks needs ${option} as a whole number from ${low} to ${high}.`,
  noClock: (engine: string) => `The ${engine} engine has no clock for webhook leases (Dialect.currentMillis): it cannot deliver webhooks.`,
  codeSubscription: (name: string) => `The webhook subscription "${name}" is configured in code; it cannot be stored or removed.`,
  unknownSubscription: (name: string) => `There is no webhook subscription "${name}".`,
  answeredStatus: (status: number) => `The receiver answered ${status}.`,
  timedOut: (ms: number) => `The receiver did not answer within ${ms} ms.`,
  unreachable: (cause: string) => `The receiver could not be reached: ${cause}.`,
  waitingBehind: (position: number) => `Waiting behind event ${position} of the same key, which could not be delivered.`,
  purgedPastPosition: (name: string, position: number, oldest: number) =>
    `The webhook subscription "${name}" had delivered up to ${position}, but the change log was purged up to ${oldest - 1}: the changes between were never delivered.`,
  storedMalformed: (name: string, reason: string) =>
    `The stored webhook subscription "${name}" is malformed and is not delivered: ${reason}`,
} as const;

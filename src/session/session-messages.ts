/** Every text of the session layer's own errors, in one place (typed errors of src/errors.ts carry theirs). */
export const SessionMessages = {
  noSequence: (entity: string) => `${entity}: drawing a key needs a @Sequence.`,
  noChangeRecorder: "An entity with @ChangeFeed was written, but the change feed is not loaded: import @ChangeFeed from tenon.",
  keyOutOfRange: (entity: string, sequence: string, id: number) =>
    `${entity}: the sequence ${sequence} handed out ${id}, outside the int32 key range.`,
  undeleteWithoutDeletedAt: (entity: string) => `${entity}: undelete needs a @DeletedAt column.`,
  rollbackFailed: (reason: string) => `The transaction failed and so did its rollback: ${reason}`,
  keyTaken: (entity: string, id: number) => `${entity}: a row with the key ${id} exists.`,
  mixedBatch: (operation: string, entity: string) => `${operation}: every entity must be a ${entity}.`,
  referenceAbsent: (entity: string, id: number) => `${entity} ${id} does not exist.`,
} as const;

/** Every client-facing text of the generic CRUD layer, in one place. */
export const CrudMessages = {
  columnNotFilterable: (name: string): string =>
    `Column ${name} cannot be used in a filter: it is not a column of this entity, or it is marked as not filterable.`,
  filterNotObject: "The filter body must be a JSON object.",
  invalidConsistencyToken: "The X-Consistency-Token header is not a consistency token of this server: send back one it answered.",
  unknownFilterProperty: (name: string): string =>
    `The filter body has an unknown property "${name}"; expected where, orderBy, start, limit, after and count.`,
  whereNotArray: "The filter property where must be an array.",
  orderByNotArray: "The filter property orderBy must be an array.",
  conditionNotObject: "Each where item must be an object with columnName and condition, or with or.",
  unknownConditionProperty: (name: string): string => `A where item has an unknown property "${name}".`,
  orNotArray: "The or property of a where item must be a non-empty array.",
  orTooDeep: (depth: number): string => `The where conditions nest or groups more than ${depth} deep.`,
  columnNameMissing: "A where or orderBy item has no columnName string.",
  conditionMissing: (column: string): string => `The condition on ${column} is missing or not a string.`,
  unknownCondition: (condition: string): string =>
    `Unknown condition "${condition}"; use =, <>, <, <=, >, >=, LIKE, NOT LIKE, IN, IS NULL or IS NOT NULL.`,
  likeOnText: (column: string): string => `LIKE and NOT LIKE apply to text columns only; ${column} is not one.`,
  likeTooLong: (column: string, max: number): string => `The LIKE pattern for ${column} is longer than ${max} characters.`,
  valueMissing: (column: string, condition: string): string => `The condition ${condition} on ${column} needs a value.`,
  valueNotAllowed: (column: string, condition: string): string => `The condition ${condition} on ${column} takes no value.`,
  inNotArray: (column: string, max: number): string => `IN on ${column} needs an array of 1 to ${max} values.`,
  valueNotConvertible: (column: string, expected: string): string => `The value for ${column} must be ${expected}.`,
  tooManyConditions: (max: number): string => `The filter has more than ${max} conditions.`,
  tooManyOrderBy: (max: number): string => `The filter orders by more than ${max} columns.`,
  orderByNotObject: "Each orderBy item must be an object with columnName and direction.",
  unknownOrderByProperty: (name: string): string => `An orderBy item has an unknown property "${name}".`,
  badDirection: (direction: string): string => `Unknown direction "${direction}"; use ASC or DESC.`,
  directionNotText: "An orderBy direction must be the text ASC or DESC (or empty).",
  badStart: "The filter property start must be a non-negative integer.",
  badLimit: "The filter property limit must be an integer.",
  badCount: 'The filter property count must be true, false, "exact", "none", "estimated" or {"atMost": n} with n a positive integer.',
  afterWithStart: "The filter properties after and start exclude each other: a keyset page starts after the cursor's row.",
  badCursor: "The filter property after must be a cursor that a select answered as nextCursor.",
  cursorOtherOrder:
    "The cursor in after was made for another orderBy: send the orderBy of the page that answered it, or start again without after.",
  cursorValue: (column: string): string => `The cursor in after carries a value for ${column} that is not of its type.`,
  idTaken: (id: number): string => `Entity ${id} already exists.`,
  updateWithoutId: (property: string): string => `The body has no ${property}: an update needs the id of the entity.`,
  updateWithoutVersion: (property: string): string => `The body has no ${property}: an update needs the version the entity was read with.`,
  patchIdMismatch: (property: string, id: number): string => `The body's ${property} differs from the address's ${id}.`,
  patchNotObject: "A merge patch body must be a JSON object.",
  patchNullRequired: (property: string): string => `${property} cannot be null.`,
  bulkNotObject: "A bulk body must be a JSON object with the lists insert, update and delete.",
  unknownBulkProperty: (name: string): string => `The bulk body has an unknown property "${name}"; expected insert, update and delete.`,
  bulkListNotArray: (name: string): string => `The bulk property ${name} must be an array.`,
  bulkTooManyItems: (count: number, max: number): string =>
    `The bulk body carries ${count} items; at most ${max} are accepted in one request.`,
  bulkDeleteItem: (id: string, version: string | undefined): string =>
    version === undefined
      ? `A delete item must be an object with an integer ${id}.`
      : `A delete item must be an object with an integer ${id} and ${version}.`,
  badIdempotencyKey: (max: number): string =>
    `The Idempotency-Key header must be 1 to ${max} visible ASCII characters without commas, optionally in double quotes.`,
  idempotencyKeyReused: "This Idempotency-Key was used with another request body; use a new key for a new request.",
  idempotencyKeyInProgress: "A request with this Idempotency-Key is still being processed; retry it later.",
  badEntityTagList: (header: string): string =>
    `The ${header} header must be * or a comma-separated list of entity tags in double quotes, such as "12-3".`,
  ifMatchOneStrongTag: 'If-Match must carry exactly one strong entity tag, as a GET of the entity answered it (such as "12-3"), or *.',
  ifMatchNotOurs: 'The If-Match entity tag is not one this API issued: expected "<id>-<version>" as a GET of the entity answered it.',
  ifMatchVersionDiffers: (property: string): string =>
    `The If-Match entity tag and the body's or address's ${property} name different versions.`,
  preconditionFailed: (id: number): string =>
    `Entity ${id} does not match the If-Match entity tag: it was changed, deleted or never had that tag.`,
  badLastEventId: "The Last-Event-ID header (or the lastEventId parameter) must be an event id this stream sent: a non-negative integer.",
  changeWhereNotJson: "The where parameter must be a JSON array of conditions, as in a select body's where.",
  changeIdUnknown:
    "This Last-Event-ID was never sent by this change log (it is ahead of every change, as after a restore from a backup): read the data again, then open the stream without Last-Event-ID.",
  changesPurged: "The changes after this Last-Event-ID were purged: read the data again, then open the stream without Last-Event-ID.",
  changeWhereOnEntityOnly:
    "The where parameter filters an entity's own change stream ({base}/changes of the entity), not the stream of every entity.",
  noChangeFeed: (entity: string): string => `${entity} has no change feed.`,
  aggregateNotObject: "The aggregate body must be a JSON object.",
  unknownAggregateProperty: (name: string): string =>
    `The aggregate body has an unknown property "${name}"; expected where, groupBy, metrics, having, orderBy, limit and after.`,
  listNotArray: (name: string): string => `The aggregate property ${name} must be an array.`,
  listTooLong: (name: string, max: number): string => `The aggregate property ${name} has more than ${max} items.`,
  metricsMissing: "The aggregate body needs metrics: an array of at least one {fn, column?, as}.",
  aggregateNameTwice: (name: string): string => `The aggregate names "${name}" twice; each group and metric needs its own name.`,
  badAggregateName: (max: number): string => `An aggregate name (as) must be a non-empty string of at most ${max} characters.`,
  columnNotGroupable: (name: string): string =>
    `Column ${name} cannot be used in an aggregate's groupBy: it is not a column of this entity or of an entity it references, or it is not declared aggregatable.`,
  columnNotAggregatable: (name: string): string =>
    `Column ${name} cannot be used in an aggregate: it is not a column of this entity, or it is not declared aggregatable.`,
  groupNotValid: 'Each groupBy item must be a column name or an object {"column", "truncate"?, "as"?}.',
  unknownGroupProperty: (name: string): string => `A groupBy item has an unknown property "${name}"; expected column, truncate and as.`,
  badTruncate: "The truncate of a groupBy item must be day, week, month or year.",
  truncateNotDate: (name: string): string => `Column ${name} is not a date; only a date is truncated to a day, week, month or year.`,
  metricNotValid: 'Each metrics item must be an object {"fn", "column"?, "as"} with text values.',
  unknownMetricProperty: (name: string): string => `A metrics item has an unknown property "${name}"; expected fn, column and as.`,
  unknownFunction: (fn: string): string => `Unknown aggregate function "${fn}"; use count, countDistinct, sum, avg, min or max.`,
  metricWithoutName: (fn: string): string => `The metric ${fn} has no name: give it one with as.`,
  metricWithoutColumn: (fn: string): string => `The metric ${fn} needs a column; only count counts rows without one.`,
  metricWrongType: (fn: string, name: string, kind: string): string =>
    kind === "string"
      ? `The metric ${fn} does not apply to ${name}, a text column: sum and avg need a numeric column.`
      : `The metric ${fn} does not apply to ${name}, a ${kind} column.`,
  metricNotAllowed: (fn: string, name: string): string =>
    `The metric ${fn} is not allowed on ${name}: the column is not declared aggregatable for it.`,
  sumNotExact: (fn: string, name: string): string =>
    `The metric ${fn} of ${name} cannot be computed exactly on this database engine (a decimal of more than 18 digits on SQLite).`,
  havingNotObject: "Each having item must be an object with columnName (a metric's name) and condition, or with or.",
  unknownHavingProperty: (name: string): string => `A having item has an unknown property "${name}".`,
  havingNotMetric: (name: string): string =>
    `The having item names ${name}, which is no metric of the aggregate: having compares metrics only.`,
  unknownHavingCondition: (condition: string): string =>
    `Unknown having condition "${condition}"; use =, <>, <, <=, >, >=, IN, IS NULL or IS NOT NULL.`,
  orderByNotAggregate: (name: string): string => `The orderBy item names ${name}, which is no group or metric of the aggregate.`,
  tooManyGroups: (groups: number, max: number): string =>
    `The aggregate has ${groups} groups, more than the ${max} this server answers: narrow where or having, or group by fewer or coarser columns.`,
  badAggregateCursor: "The aggregate property after must be a cursor that an aggregate answered as nextCursor.",
  aggregateCursorOtherOrder:
    "The cursor in after was made for another aggregate or orderBy: send the body of the page that answered it, or start again without after.",
  ifMatchRequired: "This write needs an If-Match header with the entity tag the entity was read with.",
  streamStopped: "The streamed answer was stopped before its end: the server is stopping, or its client went away.",
  importLineTooLong: (line: number, max: number): string => `Line ${line} of the NDJSON body is longer than ${max} bytes.`,
  importLineNotUtf8: (line: number): string => `Line ${line} of the NDJSON body is not UTF-8 text.`,
  importLineNotJson: (line: number): string => `Line ${line} of the NDJSON body is not valid JSON.`,
  streamedCount: 'A streamed answer (NDJSON or CSV) carries no count; leave count out, or set it to false or "none".',
} as const;

/** Every text of the filter layer (the builder and `Filter.addWhere`), in one place. */
export const FilterMessages = {
  unknownProperty: (entity: string, property: string) => `${entity} has no mapped column ${property}.`,
  emptyGroup: (kind: string) => `A ${kind}(...) group of a filter needs at least one condition.`,
  likeNotText: (property: string) => `LIKE applies to text columns only, and ${property} is not one.`,
  likePattern: (property: string) => `The LIKE pattern for ${property} must be a string.`,
  nullValue: (property: string) => `A comparison of ${property} with null never holds; use isNull() or isNotNull().`,
  direction: (direction: string) => `The order direction ${direction} is neither ASC nor DESC.`,
  page: (what: string, rows: number) => `The ${what} of a filter must be a non-negative integer, not ${rows}.`,
  reservedParameter: (name: string) =>
    `addWhere: the parameter name "${name}" is reserved for filter conditions (p0, p1, ...); choose another name.`,
  aggregateName: (name: string) => `The aggregate name "${name}" is empty or names two groups or metrics; give each its own.`,
  notReference: (entity: string, property: string) =>
    `${entity}.${property} is not a Lazy reference; an aggregate groups by the columns a reference reaches.`,
  truncateNotDate: (property: string) => `${property} is not a date column; only a date is truncated to a day, week, month or year.`,
  groupType: (property: string) => `An aggregate cannot group by ${property}, a blob column.`,
  noMetric: "An aggregate needs at least one metric.",
  metricWithoutProperty: (fn: string) => `The metric ${fn} needs a property; only count counts rows without one.`,
  metricType: (fn: string, property: string) => `The metric ${fn} does not apply to ${property}, a column of another type.`,
  unknownMetric: (name: string) => `The aggregate has no group or metric named "${name}".`,
  inValues: (name: string) => `IN on the metric ${name} needs an array of values.`,
  metricValue: (name: string) => `The value compared with the metric ${name} is not a decimal that it can hold.`,
} as const;

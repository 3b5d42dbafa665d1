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
} as const;

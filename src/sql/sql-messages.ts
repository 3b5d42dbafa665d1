/** Every text of the SQL layer, in one place. */
export const SqlMessages = {
  parameterWithoutValue: (name: string) => `The SQL parameter :${name} has no value.`,
  tenantMissing: (entity: string) => `${entity} is scoped by tenant, and a scoped statement of it was built without a tenant.`,
  sumNotExact: (entity: string, property: string, engine: string) =>
    `${entity}.${property}: the ${engine} engine cannot sum or average this column exactly (a decimal of more than 18 digits on SQLite).`,
} as const;

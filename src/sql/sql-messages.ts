/** Every text of the SQL layer, in one place. */
export const SqlMessages = {
  parameterWithoutValue: (name: string) => `The SQL parameter :${name} has no value.`,
} as const;

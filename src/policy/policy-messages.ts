/** Every text of the policy layer (`@Policy`, its mapping-time checks and its refusals), in one place. */
export const PolicyMessages = {
  // Mapping-time refusals of a `@Policy`: each is `<entity>: <text>` in a MappingError.
  appliedTwice: "@Policy is applied more than once; declare one policy per entity.",
  notAnObject: "the policy must be an object (or a function answering one) of rules, members and set values.",
  unknownKey: (where: string, key: string) => `${where} has no setting ${key}.`,
  unknownOperation: (operation: string) =>
    `the policy names the operation ${operation}; the operations are read, insert, update, delete, aggregate, export and changes.`,
  unknownMember: (where: string, member: string) => `${where} names ${member}, which is not a mapped column of the entity.`,
  memberNotOwn: (where: string, member: string) => `${where} names ${member}, a column of a joined table, which cannot be written.`,
  protectedMember: (where: string, member: string) =>
    `${where} names ${member}: the primary key, the version, the tenant and the change-tracking columns are not governed by a policy.`,
  wrongType: (where: string, member: string, expected: string, got: string) =>
    `${where} compares ${member} (${expected}) with ${got}, a value of another type.`,
  unknownOperator: (where: string, member: string, operator: string) =>
    `${where} compares ${member} with the operator ${operator}; the operators are =, <>, <, <=, >, >=, IN and LIKE.`,
  likeNotText: (where: string, member: string) => `${where} applies LIKE to ${member}, which is not a text column.`,
  inNotList: (where: string, member: string) => `${where} compares ${member} with IN, whose value must be a list or a list claim.`,
  listNotIn: (where: string, member: string) => `${where} compares ${member} with a list claim, which only IN can use.`,
  nullOrdering: (where: string, member: string, operator: string) =>
    `${where} compares ${member} ${operator} null, which never holds; write null for IS NULL and { "<>": null } for IS NOT NULL.`,
  undeclaredClaim: (where: string, claim: string) =>
    `${where} names the claim ${claim}, which the caller's claims do not declare (declare it with declareClaims).`,
  claimsNotDeclared: (where: string, claim: string) =>
    `${where} names the claim ${claim}, and the policy was given no claims declaration (@Policy(claims, ...)).`,
  emptyGroup: (where: string, kind: string) => `${where} has an empty ${kind} group, which is refused as a likely mistake.`,
  notAFunction: (where: string) => `${where}.when must be a function of the caller answering a boolean.`,
  notAreas: (where: string) => `${where}.areas must be a list of area names.`,
  changeFeedMember: (where: string, member: string) =>
    `${where} names ${member}, which the entity's change records do not carry, so the change feed could not apply the policy to them.`,
  badClaimType: (claim: string) => `The claim ${claim} is declared with something that is not a ClaimType.`,
  // Refusals of a request.
  callerRequired: (entity: string) => `${entity} is governed by a policy, and this session has no caller.`,
  refused: (entity: string, operation: string) => `The caller may not ${operation} this ${entity}.`,
  memberNotWritable: (property: string) => `Property ${property} may not be written by the caller.`,
  valueRefused: (property: string) => `Property ${property}: the caller may not write this value.`,
} as const;

/** Every text of the events layer, in one place. */
export const EventMessages = {
  privateMethod: (entity: string, method: string, decorator: string) =>
    `${entity}: @${decorator} marks the private method ${method}; entity events must be public methods (a private one would never be called).`,
  notMethod: (entity: string, member: string, decorator: string) =>
    `${entity}: @${decorator} on ${member}: entity events apply to instance methods only.`,
  duplicate: (entity: string, decorator: string) => `${entity}: @${decorator} is applied more than once.`,
  notAClass: (entity: string, decorator: string) => `${entity}: @${decorator} needs an event class.`,
} as const;

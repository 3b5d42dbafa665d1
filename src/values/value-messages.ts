/** The texts of the value rules that no layer above owns: a value that a driver could not bind exactly. */
export const ValueMessages = {
  decimalDoesNotFit: (value: string, precision: number, scale: number) =>
    `The value ${value} does not fit a decimal of ${precision} digits with ${scale} after the point.`,
} as const;

/** Exhaustive switches end here: a new union member fails to compile until handled. */
export function assertNever(value: never): never {
  throw new Error(`unhandled variant: ${JSON.stringify(value)}`);
}

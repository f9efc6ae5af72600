/** Ends an exhaustive switch: a new union variant fails to compile until it is handled. */
export function assertNever(value: never): never {
  throw new Error(`unhandled variant: ${String(value)}`);
}

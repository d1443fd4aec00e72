/**
 * Freezes a value and everything it holds, so code that would mutate shared configuration (or a test
 * fixture) throws instead. Maps and Sets are frozen as objects only: their entries stay writable, which is
 * why frozen configuration holds plain objects and arrays.
 */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

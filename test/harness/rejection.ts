/**
 * The error a promise rejects with; fails when it resolves. `await rejection(p)` keeps tests lint-clean,
 * where `await expect(p).rejects…` trips the await-thenable rule on bun:test's declared matcher types.
 */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
  );
}

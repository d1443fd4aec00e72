import { describe, expect, test } from "bun:test";
import {
  findRetryError,
  ImplementedElsewhereError,
  InstanceNotFoundError,
  NotImplementedError,
  RetryError,
} from "./errors.ts";

type ErrorsModule = typeof import("./errors.ts");

/** A second instance of this module, as a provider compiled as its own module graph has. */
async function copyOfErrors(): Promise<ErrorsModule> {
  const specifier = "./errors.ts?another-module-graph";
  return (await import(specifier)) as ErrorsModule;
}

describe("cloud errors", () => {
  test("a provider's copy of the classes throws errors that mean the same here", async () => {
    const copy = await copyOfErrors();
    expect(copy.RetryError).not.toBe(RetryError);
    const retry = new copy.RetryError("throttled", 1500);
    expect(retry instanceof RetryError).toBe(true);
    expect(new copy.InstanceNotFoundError() instanceof InstanceNotFoundError).toBe(true);
    expect(new copy.NotImplementedError() instanceof NotImplementedError).toBe(true);
    expect(new copy.ImplementedElsewhereError() instanceof ImplementedElsewhereError).toBe(true);
    expect(findRetryError(new Error("ensure failed", { cause: retry }))?.retryAfterMs).toBe(1500);
  });

  test("each class recognises its own errors only", () => {
    const errors = [
      new InstanceNotFoundError(),
      new NotImplementedError(),
      new ImplementedElsewhereError(),
      new RetryError("later", 10),
    ];
    const classes = [InstanceNotFoundError, NotImplementedError, ImplementedElsewhereError, RetryError];
    for (const [i, error] of errors.entries())
      expect(classes.map((c) => error instanceof c)).toEqual(classes.map((_, j) => j === i));
  });

  test("another error is none of them, whatever its name or code", () => {
    const named = Object.assign(new Error("x"), { name: "RetryError", code: "ECONNRESET" });
    const coded = { code: "Retry", name: "RetryError", retryAfterMs: 1 };
    for (const value of [new Error("Retry"), named, coded, undefined, "Retry"]) {
      expect(value instanceof RetryError).toBe(false);
      expect(value instanceof InstanceNotFoundError).toBe(false);
    }
    expect(findRetryError(named)).toBeUndefined();
  });
});

import { describe, expect, test } from "bun:test";
import { onAbort } from "./abort.ts";

describe("onAbort", () => {
  test("callbacks run once, in the order they subscribed; an unsubscribed one does not run", () => {
    const stop = new AbortController();
    const calls: string[] = [];
    onAbort(stop.signal, () => calls.push("a"));
    const off = onAbort(stop.signal, () => calls.push("b"));
    onAbort(stop.signal, () => calls.push("c"));
    off();
    stop.abort();
    stop.abort();
    expect(calls).toEqual(["a", "c"]);
  });

  test("the same function subscribed twice runs twice, as two listeners would not; each unsubscribes alone", () => {
    const stop = new AbortController();
    let calls = 0;
    const count = (): void => void calls++;
    const first = onAbort(stop.signal, count);
    onAbort(stop.signal, count);
    first();
    stop.abort();
    expect(calls).toBe(1);
  });

  test("an aborted signal or none: nothing runs, and the unsubscribe is harmless", () => {
    const stop = new AbortController();
    stop.abort();
    let calls = 0;
    onAbort(stop.signal, () => void calls++)();
    onAbort(undefined, () => void calls++)();
    expect(calls).toBe(0);
  });

  test("a callback that throws does not stop the others; the first error leaves the one listener", () => {
    let dispatch = (): void => undefined;
    const signal = {
      aborted: false,
      addEventListener: (_type: string, listener: () => void) => void (dispatch = listener),
    } as unknown as AbortSignal;
    const calls: string[] = [];
    onAbort(signal, () => {
      throw new Error("boom");
    });
    onAbort(signal, () => {
      throw new Error("second");
    });
    onAbort(signal, () => calls.push("after"));
    expect(dispatch).toThrow("boom");
    expect(calls).toEqual(["after"]);
  });

  test("subscribing again after every subscriber left still hears the abort", () => {
    const stop = new AbortController();
    let calls = 0;
    const off = onAbort(stop.signal, () => void calls++);
    off();
    onAbort(stop.signal, () => void calls++);
    stop.abort();
    expect(calls).toBe(1);
  });
});

import { describe, expect, test } from "bun:test";
import { parseFakeConfig } from "./index.ts";
import { createFakeProvider } from "./provider.ts";
import { testProviderContext } from "../../test/harness/provider-context.ts";
import { freePort } from "../../scripts/control-plane/ports.ts";

function provider(yaml: string) {
  const parsed = parseFakeConfig(yaml);
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  return createFakeProvider({ config: parsed.config, path: "" }, testProviderContext());
}

describe("fake provider preflight", () => {
  const cases: { name: string; yaml: () => Promise<string>; problem?: RegExp }[] = [
    { name: "a healthy in-process cloud", yaml: () => Promise.resolve("") },
    {
      name: "every call failing",
      yaml: () => Promise.resolve("faults: { failAll: error }"),
      problem: /in-process fake cloud did not answer.*InternalError/,
    },
    {
      name: "every call throttled",
      yaml: () => Promise.resolve("faults: { failAll: throttle }"),
      problem: /RequestLimitExceeded/,
    },
    {
      name: "an endpoint nobody listens on",
      yaml: async () => `endpoint: http://127.0.0.1:${await freePort()}`,
      problem: /fake cloud at http:\/\/127\.0\.0\.1:\d+ did not answer/,
    },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const problems = await provider(await c.yaml()).preflight!(AbortSignal.timeout(10_000));
      if (c.problem) {
        expect(problems).toHaveLength(1);
        expect(problems[0]).toMatch(c.problem);
      } else expect(problems).toEqual([]);
    });
  }
});

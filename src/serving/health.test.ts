import { describe, expect, test } from "bun:test";
import { createHealthRegistry } from "./health.ts";

function registry(): ReturnType<typeof createHealthRegistry> {
  const health = createHealthRegistry({});
  health.add("ping", () => undefined);
  health.add("informer-sync", () => "caches not synced yet");
  return health;
}

async function get(health: ReturnType<typeof createHealthRegistry>, path: string): Promise<[number, string]> {
  const response = health.handle("/healthz", new URL(`https://localhost${path}`));
  return [response.status, await response.text()];
}

describe("health endpoints in upstream's words", () => {
  test("healthy: 'ok'; ?verbose lists each check and 'healthz check passed'", async () => {
    const health = createHealthRegistry({});
    health.add("ping", () => undefined);
    expect(await get(health, "/healthz")).toEqual([200, "ok"]);
    expect(await get(health, "/healthz?verbose")).toEqual([200, "[+]ping ok\nhealthz check passed\n"]);
  });

  test("a failing check: its reason withheld from the list (a public endpoint), given on its own path", async () => {
    const health = registry();
    expect(await get(health, "/healthz")).toEqual([
      500,
      "[+]ping ok\n[-]informer-sync failed: reason withheld\nhealthz check failed\n",
    ]);
    expect(await get(health, "/healthz/informer-sync")).toEqual([
      500,
      "internal server error: caches not synced yet\n",
    ]);
    expect(await get(health, "/healthz/ping")).toEqual([200, "ok"]);
  });

  test("?exclude skips a check, says so, and warns of names that match none", async () => {
    const health = registry();
    expect(await get(health, "/healthz?verbose&exclude=informer-sync&exclude=nope")).toEqual([
      200,
      '[+]ping ok\n[+]informer-sync excluded: ok\nwarn: some health checks cannot be excluded: no matches for "nope"\nhealthz check passed\n',
    ]);
  });
});

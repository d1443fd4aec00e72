/**
 * The fake cloud over loopback HTTP: the cloud API at `POST /v1/call/<operation>` and an admin API that
 * tests and the demo use to change the cloud while CCMs run (instances, faults, call counters, state).
 */
import type { Server } from "bun";
import type { FakeInstance, Faults, InstanceState } from "./config.ts";
import { FakeCloud, FakeCloudError } from "./engine.ts";
import type { FakeRoute } from "./wire.ts";

const json = (body: unknown, status = 200): Response => Response.json(body, { status });

async function callRoute(engine: FakeCloud, operation: string, req: Request): Promise<Response> {
  try {
    return json(await engine.call(operation, await req.json(), req.signal));
  } catch (error) {
    if (error instanceof FakeCloudError)
      return json({ error: { code: error.code, message: error.message } }, error.code === "Throttled" ? 429 : 400);
    return json({ error: { code: "InternalError", message: (error as Error).message } }, 500);
  }
}

type AdminHandler = (engine: FakeCloud, name: string, req: Request) => unknown;

/** `<METHOD> /admin/<resource>[/<name>]` → handler. */
const ADMIN: Readonly<Record<string, AdminHandler>> = {
  "GET calls": (engine) => engine.calls(),
  "DELETE calls": (engine) => {
    engine.resetCalls();
    return engine.calls();
  },
  "GET state": (engine) => ({
    instances: engine.instances(),
    loadBalancers: engine.loadBalancers(),
    routes: engine.routes(),
    faults: engine.faults,
  }),
  "PUT faults": async (engine, _name, req) => {
    engine.setFaults((await req.json()) as Faults);
    return engine.faults;
  },
  "PUT instances": async (engine, name, req) => {
    engine.putInstance(engine.instanceWithDefaults({ ...((await req.json()) as Partial<FakeInstance>), name }));
    return {};
  },
  "PATCH instances": async (engine, name, req) => {
    engine.setInstanceState(name, ((await req.json()) as { state: InstanceState }).state);
    return {};
  },
  "DELETE instances": (engine, name) => {
    engine.removeInstance(name);
    return {};
  },
  "POST routes": async (engine, _name, req) => {
    engine.putRoute((await req.json()) as FakeRoute);
    return {};
  },
};

async function adminRoute(engine: FakeCloud, path: string, req: Request): Promise<Response> {
  const [, resource, name = ""] = path.split("/");
  const handler = ADMIN[`${req.method} ${resource ?? ""}`];
  if (!handler) return json({ error: { code: "NotFound", message: `no admin route ${req.method} ${path}` } }, 404);
  return json(await handler(engine, name, req));
}

export function serveFakeCloud(
  engine: FakeCloud,
  options: { hostname?: string; port?: number } = {},
): Server<undefined> {
  return Bun.serve({
    hostname: options.hostname ?? "127.0.0.1",
    port: options.port ?? 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      if (path.startsWith("/v1/call/") && req.method === "POST")
        return callRoute(engine, path.slice("/v1/call/".length), req);
      if (path.startsWith("/admin/")) return adminRoute(engine, path.slice("/admin".length), req);
      return json({ error: { code: "NotFound", message: `no route ${req.method} ${path}` } }, 404);
    },
  });
}

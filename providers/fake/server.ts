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
    if (error instanceof FakeCloudError) return json({ error: { code: error.code, message: error.message } }, error.code === "Throttled" ? 429 : 400);
    return json({ error: { code: "InternalError", message: (error as Error).message } }, 500);
  }
}

async function adminRoute(engine: FakeCloud, path: string, req: Request): Promise<Response> {
  const [, resource, name] = path.split("/");
  const method = req.method;
  if (resource === "calls") {
    if (method === "DELETE") engine.resetCalls();
    return json(engine.calls());
  }
  if (resource === "state") return json({ instances: engine.instances(), loadBalancers: engine.loadBalancers(), routes: engine.routes(), faults: engine.faults });
  if (resource === "faults" && method === "PUT") {
    engine.setFaults((await req.json()) as Faults);
    return json(engine.faults);
  }
  if (resource === "instances" && name && method === "PUT") {
    const body = (await req.json()) as Partial<FakeInstance>;
    engine.putInstance(engine.instanceWithDefaults({ ...body, name }));
    return json({});
  }
  if (resource === "instances" && name && method === "PATCH") {
    engine.setInstanceState(name, ((await req.json()) as { state: InstanceState }).state);
    return json({});
  }
  if (resource === "instances" && name && method === "DELETE") {
    engine.removeInstance(name);
    return json({});
  }
  if (resource === "routes" && method === "POST") {
    engine.putRoute((await req.json()) as FakeRoute);
    return json({});
  }
  return json({ error: { code: "NotFound", message: `no admin route ${method} ${path}` } }, 404);
}

export function serveFakeCloud(engine: FakeCloud, options: { hostname?: string; port?: number } = {}): Server<undefined> {
  return Bun.serve({
    hostname: options.hostname ?? "127.0.0.1",
    port: options.port ?? 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      if (path.startsWith("/v1/call/") && req.method === "POST") return callRoute(engine, path.slice("/v1/call/".length), req);
      if (path.startsWith("/admin/")) return adminRoute(engine, path.slice("/admin".length), req);
      return json({ error: { code: "NotFound", message: `no route ${req.method} ${path}` } }, 404);
    },
  });
}

import { afterAll, describe, expect, test } from "bun:test";
import { LEASES, type KubeApi } from "../kube/api.ts";
import { withBearerToken, type Connection } from "../kube/connection.ts";
import { TokenBucket } from "../kube/token-bucket.ts";
import { createMetrics } from "../metrics/metrics.ts";
import { clientFactory } from "./clients.ts";

/** Answers a GET of a Lease named `held-…` only once released; counts what is on the wire. */
let inFlight = 0;
let peak = 0;
let release: () => void = () => undefined;
let released = Promise.withResolvers<void>();
/** The client port each path was asked from: one port, one connection. */
const portOf = new Map<string, number | undefined>();
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(request, self) {
    const path = new URL(request.url).pathname;
    portOf.set(path.split("/").at(-1) ?? "", self.requestIP(request)?.port);
    inFlight += 1;
    peak = Math.max(peak, inFlight);
    if (path.includes("/held-")) await released.promise;
    else await Bun.sleep(5);
    inFlight -= 1;
    return Response.json({ path });
  },
});
afterAll(() => void server.stop(true));

const connection: Connection = {
  server: `http://127.0.0.1:${server.port}`,
  tls: { rejectUnauthorized: false },
  authorization: () => Promise.resolve(undefined),
};
const unlimited = (): TokenBucket => TokenBucket.create(0, 0);
/** The path the server saw for a GET of the Lease `name`. */
const get = async (api: KubeApi, name: string): Promise<string> => {
  const answer = await api.get<never>(LEASES, name, { namespace: "test" });
  return (answer as { path: string }).path;
};

describe("the clients of one process", () => {
  test("share its connections: two identities keep at most maxInFlight requests on the wire together", async () => {
    peak = 0;
    const factory = clientFactory(createMetrics(), 3);
    const node = factory.api(connection, unlimited(), { agent: "node" });
    const route = factory.api(connection, unlimited(), { agent: "route" });
    const paths = await Promise.all(Array.from({ length: 8 }, (_, i) => get(i % 2 ? node : route, `r${i}`)));
    expect(paths.map((p) => p.split("/").at(-1))).toEqual(Array.from({ length: 8 }, (_, i) => `r${i}`));
    expect(peak).toBe(3);
  });

  test("a client with connections of its own is answered while the shared ones are all taken", async () => {
    released = Promise.withResolvers<void>();
    release = released.resolve;
    const factory = clientFactory(createMetrics(), 2);
    const controllers = factory.api(connection, unlimited());
    const held = [1, 2, 3].map((i) => get(controllers, `held-${i}`));
    const own = factory.api(connection, unlimited(), { agent: "lease", ownConnections: true });
    const shared = factory.api(connection, unlimited());
    let sharedAnswered = false;
    const sharedAnswer = get(shared, "shared").then(() => (sharedAnswered = true));
    expect(await get(own, "own")).toEndWith("/leases/own");
    expect(sharedAnswered).toBe(false);
    release();
    await Promise.all([...held, sharedAnswer]);
    expect(sharedAnswered).toBe(true);
  });

  test("a request waiting for its credentials holds no slot: a token fetched on the same wire comes through", async () => {
    const factory = clientFactory(createMetrics(), 1);
    const root = factory.api(connection, unlimited());
    // As a ServiceAccount identity: every request first asks for a token with a request of the root client.
    const identity: Connection = { ...connection, authorization: async () => `Bearer ${await get(root, "token")}` };
    const controller = factory.api(identity, unlimited());
    const paths = await Promise.race([
      Promise.all([get(controller, "a"), get(controller, "b")]),
      Bun.sleep(2000).then(() => ["stuck"]),
    ]);
    expect(paths.map((p) => p.split("/").at(-1))).toEqual(["a", "b"]);
  });

  test("identities with the same TLS material share connections, and none shares the certificate's", async () => {
    const factory = clientFactory(createMetrics(), 4);
    const certified: Connection = { ...connection, tls: { ...connection.tls, cert: "CERT", key: "KEY" } };
    const root = factory.api(certified, unlimited());
    const node = factory.api(
      withBearerToken(certified, () => Promise.resolve("node-token")),
      unlimited(),
    );
    const route = factory.api(
      withBearerToken(certified, () => Promise.resolve("route-token")),
      unlimited(),
    );
    await get(root, "root");
    await get(node, "node");
    await get(route, "route");
    expect(portOf.get("route")).toBe(portOf.get("node"));
    expect(portOf.get("root")).not.toBe(portOf.get("node"));
  });
});

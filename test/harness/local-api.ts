/** A client of a small HTTP server the test serves on loopback, as the manager's own clients are built. */
import { clientFactory } from "../../src/app/clients.ts";
import type { KubeApi } from "../../src/kube/api.ts";
import type { Connection } from "../../src/kube/connection.ts";
import { TokenBucket } from "../../src/kube/token-bucket.ts";
import { createMetrics } from "../../src/metrics/metrics.ts";

export function localConnection(port: number | undefined): Connection {
  return {
    server: `http://127.0.0.1:${port}`,
    tls: { rejectUnauthorized: false },
    authorization: () => Promise.resolve(undefined),
  };
}

/** A KubeApi of the server on `port`, with its own metrics and a limit no test reaches. */
export function localApi(port: number | undefined): KubeApi {
  return clientFactory(createMetrics()).api(localConnection(port), TokenBucket.create(1000, 1000));
}

/**
 * A proxy in front of moto that answers some requests itself, the way AWS misbehaves: EC2 throttling
 * (`RequestLimitExceeded`, HTTP 503) or no answer at all. Everything else is forwarded unchanged.
 */
export type Fault = "throttle" | "hang" | "pass";

export interface FaultProxy {
  readonly endpoint: string;
  /** Requests seen, with the fault each got. */
  readonly seen: Fault[];
  stop(): Promise<void>;
}

const THROTTLED = `<?xml version="1.0" encoding="UTF-8"?>
<Response><Errors><Error><Code>RequestLimitExceeded</Code><Message>Request limit exceeded.</Message></Error></Errors><RequestID>fault-proxy</RequestID></Response>`;

/** `plan(n)` picks the fault for the n-th request (from 0). */
export function faultProxy(target: string, plan: (n: number) => Fault): FaultProxy {
  const seen: Fault[] = [];
  const hanging = new Set<() => void>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(request) {
      const fault = plan(seen.length);
      seen.push(fault);
      if (fault === "throttle") return new Response(THROTTLED, { status: 503, headers: { "Content-Type": "text/xml" } });
      if (fault === "hang") {
        await new Promise<void>((resolve) => hanging.add(resolve));
        return new Response("", { status: 503 });
      }
      const url = new URL(request.url);
      return fetch(`${target}${url.pathname}${url.search}`, { method: request.method, headers: request.headers, body: await request.arrayBuffer() });
    },
  });
  return {
    endpoint: `http://127.0.0.1:${server.port}`,
    seen,
    async stop() {
      for (const wake of hanging) wake();
      await server.stop(true);
    },
  };
}

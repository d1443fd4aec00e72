/**
 * A proxy in front of moto that answers some requests itself, the way AWS misbehaves and moto does not:
 * EC2 throttling (`RequestLimitExceeded`, HTTP 503), any other EC2 error code, no answer at all, or an
 * answer of its own (an eventually consistent read that does not show yet what was just made).
 * Everything else is forwarded unchanged.
 */
export type Fault =
  "throttle" | "hang" | "pass" | { readonly code: string; readonly status: number } | { readonly answer: string };

export interface FaultProxy {
  readonly endpoint: string;
  /** Requests seen, with the fault each got. */
  readonly seen: Fault[];
  stop(): Promise<void>;
}

const ec2Error = (code: string): string =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error><Code>${code}</Code><Message>${code} (injected)</Message></Error></Errors><RequestID>fault-proxy</RequestID></Response>`;

/** `plan(n, body)` picks the fault for the n-th request (from 0), whose form body (`Action=…&…`) is `body`. */
export function faultProxy(target: string, plan: (n: number, body: string) => Fault): FaultProxy {
  const seen: Fault[] = [];
  const hanging = new Set<() => void>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(request) {
      const body = await request.arrayBuffer();
      const fault = plan(seen.length, new TextDecoder().decode(body));
      seen.push(fault);
      if (fault === "throttle")
        return new Response(ec2Error("RequestLimitExceeded"), { status: 503, headers: { "Content-Type": "text/xml" } });
      if (typeof fault === "object" && "answer" in fault)
        return new Response(fault.answer, { headers: { "Content-Type": "text/xml" } });
      if (typeof fault === "object")
        return new Response(ec2Error(fault.code), { status: fault.status, headers: { "Content-Type": "text/xml" } });
      if (fault === "hang") {
        await new Promise<void>((resolve) => hanging.add(resolve));
        return new Response("", { status: 503 });
      }
      const url = new URL(request.url);
      return fetch(`${target}${url.pathname}${url.search}`, { method: request.method, headers: request.headers, body });
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

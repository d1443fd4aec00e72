import { describe, expect, test } from "bun:test";
import type { Service } from "../../../src/kube/objects.ts";
import { parseLbOptions } from "../lb-annotations.ts";
import {
  attributesDiffer,
  desiredAttributes,
  desiredHealthCheck,
  desiredListeners,
  healthCheckDiffers,
  listenerChanges,
  validateService,
} from "./plan.ts";
import { loadBalancerName } from "../lb-names.ts";

const P = "service.beta.kubernetes.io/aws-load-balancer-";
const NO_SHARED = { shared: false, port: 10256, path: "/healthz" };

function service(spec: Partial<NonNullable<Service["spec"]>> = {}, annotations: Record<string, string> = {}): Service {
  return {
    metadata: { name: "web", namespace: "default", uid: "0f1e2d3c-4b5a-6978-8695-a4b3c2d1e0f9", annotations },
    spec: {
      type: "LoadBalancer",
      ports: [
        { port: 80, nodePort: 30080 },
        { port: 443, nodePort: 30443 },
      ],
      ...spec,
    },
  };
}

const healthCheck = (svc: Service, probe = NO_SHARED) =>
  desiredHealthCheck(svc, desiredListeners(svc), parseLbOptions(svc), probe);

describe("classic ELB plan", () => {
  test("name: a + UID without dashes, 32 characters", () => {
    expect(loadBalancerName(service())).toBe("a0f1e2d3c4b5a69788695a4b3c2d1e0f");
    expect(loadBalancerName(service())).toHaveLength(32);
  });

  test("listeners: TCP, LB port → NodePort; ports without a NodePort are skipped", () => {
    const svc = service({ ports: [{ port: 80, nodePort: 30080 }, { port: 81 }] });
    expect(desiredListeners(svc)).toEqual([
      { Protocol: "TCP", LoadBalancerPort: 80, InstanceProtocol: "TCP", InstancePort: 30080 },
    ]);
    expect(() => desiredListeners(service({ ports: [{ port: 81 }] }))).toThrow(/no port with a NodePort/);
  });

  test.each([
    ["UDP ports", { ports: [{ port: 53, protocol: "UDP" as const, nodePort: 30053 }] }, /only support TCP/],
    ["loadBalancerIP", { loadBalancerIP: "1.2.3.4" }, /loadBalancerIP/],
    ["ClientIP affinity", { sessionAffinity: "ClientIP" as const }, /sessionAffinity ClientIP/],
  ])("refuses %s", (_title, spec, message) => {
    expect(() => validateService(service(spec))).toThrow(message);
  });

  test("health check defaults: TCP on the first NodePort, 2/6, 5 s, 10 s", () => {
    expect(healthCheck(service())).toEqual({
      Target: "TCP:30080",
      HealthyThreshold: 2,
      UnhealthyThreshold: 6,
      Timeout: 5,
      Interval: 10,
    });
  });

  test("externalTrafficPolicy Local probes the health-check NodePort over HTTP", () => {
    expect(healthCheck(service({ externalTrafficPolicy: "Local", healthCheckNodePort: 32000 })).Target).toBe(
      "HTTP:32000/healthz",
    );
  });

  test("the shared probe mode probes kube-proxy", () => {
    expect(healthCheck(service(), { shared: true, port: 10256, path: "/healthz" }).Target).toBe("HTTP:10256/healthz");
  });

  test.each([
    [{ [`${P}healthcheck-protocol`]: "HTTP", [`${P}healthcheck-path`]: "/ready" }, "HTTP:30080/ready"],
    [{ [`${P}healthcheck-protocol`]: "HTTPS" }, "HTTPS:30080/"],
    [{ [`${P}healthcheck-port`]: "8080" }, "TCP:8080"],
    [{ [`${P}healthcheck-path`]: "/ignored-for-tcp" }, "TCP:30080"],
    [{ [`${P}backend-protocol`]: "https" }, "SSL:30080"],
    [{ [`${P}backend-protocol`]: "ssl" }, "SSL:30080"],
    [{ [`${P}backend-protocol`]: "http" }, "TCP:30080"],
    [{ [`${P}backend-protocol`]: "ssl", [`${P}healthcheck-protocol`]: "TCP" }, "TCP:30080"],
  ])("annotations %p → target %s", (annotations, target) => {
    expect(healthCheck(service({}, annotations)).Target).toBe(target);
  });

  test("a changed threshold is a difference; an equal check is not", () => {
    const wanted = healthCheck(service());
    expect(healthCheckDiffers({ ...wanted }, wanted)).toBe(false);
    expect(healthCheckDiffers({ ...wanted, HealthyThreshold: 3 }, wanted)).toBe(true);
    expect(healthCheckDiffers(undefined, wanted)).toBe(true);
  });

  test("listener changes: changed NodePorts are replaced, extra ports removed, new ones added", () => {
    const actual = [
      { Listener: { Protocol: "TCP", LoadBalancerPort: 80, InstanceProtocol: "TCP", InstancePort: 30080 } },
      { Listener: { Protocol: "TCP", LoadBalancerPort: 443, InstanceProtocol: "TCP", InstancePort: 30999 } },
      { Listener: { Protocol: "TCP", LoadBalancerPort: 8080, InstanceProtocol: "TCP", InstancePort: 30808 } },
    ];
    const changes = listenerChanges(actual, desiredListeners(service()));
    expect(changes.remove).toEqual([443, 8080]);
    expect(changes.add).toEqual([
      { Protocol: "TCP", LoadBalancerPort: 443, InstanceProtocol: "TCP", InstancePort: 30443 },
    ]);
  });

  test("attributes: upstream defaults, annotations on top", () => {
    expect(desiredAttributes(parseLbOptions(service()))).toEqual({
      CrossZoneLoadBalancing: { Enabled: false },
      ConnectionDraining: { Enabled: false },
      ConnectionSettings: { IdleTimeout: 60 },
      AccessLog: { Enabled: false },
    });
    const tuned = desiredAttributes(
      parseLbOptions(
        service({}, { [`${P}connection-draining-enabled`]: "true", [`${P}cross-zone-load-balancing-enabled`]: "true" }),
      ),
    );
    expect(tuned.ConnectionDraining).toEqual({ Enabled: true, Timeout: 300 });
    expect(tuned.CrossZoneLoadBalancing).toEqual({ Enabled: true });
  });

  // moto appends a duplicate `elb.http.desyncmitigationmode` entry to AdditionalAttributes on every modify
  // (AWS keeps one): ignoring AdditionalAttributes is what lets the ELB converge against either.
  test("attribute comparison ignores AdditionalAttributes and the draining timeout while draining is off", () => {
    const wanted = desiredAttributes(parseLbOptions(service()));
    const actual = {
      ...wanted,
      ConnectionDraining: { Enabled: false, Timeout: 300 },
      AdditionalAttributes: [{ Key: "elb.http.desyncmitigationmode", Value: "defensive" }],
    };
    expect(attributesDiffer(actual, wanted)).toBe(false);
    expect(attributesDiffer({ ...actual, ConnectionSettings: { IdleTimeout: 120 } }, wanted)).toBe(true);
    expect(attributesDiffer(undefined, wanted)).toBe(true);
  });
});

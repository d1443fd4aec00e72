import { describe, expect, test } from "bun:test";
import { ImplementedElsewhereError } from "../../src/cloud/errors.ts";
import type { Service } from "../../src/kube/objects.ts";
import { parseLbOptions } from "./lb-annotations.ts";

const P = "service.beta.kubernetes.io/aws-load-balancer-";

function service(annotations: Record<string, string>, spec: Partial<NonNullable<Service["spec"]>> = {}): Service {
  return {
    metadata: { name: "web", namespace: "default", uid: "u", annotations },
    spec: { type: "LoadBalancer", ports: [{ port: 80, nodePort: 30080 }], ...spec },
  };
}

describe("aws-load-balancer-* annotations", () => {
  test("defaults: internet-facing, open to the world, upstream attributes left to the plan", () => {
    expect(parseLbOptions(service({}))).toMatchObject({
      internal: false,
      sourceRanges: ["0.0.0.0/0"],
      extraTags: {},
      warnings: [],
      securityGroups: [],
      subnets: [],
    });
  });

  test("every supported annotation", () => {
    const options = parseLbOptions(
      service({
        [`${P}internal`]: "true",
        [`${P}healthcheck-protocol`]: "http",
        [`${P}healthcheck-port`]: "traffic-port",
        [`${P}healthcheck-path`]: "/ready",
        [`${P}healthcheck-healthy-threshold`]: "3",
        [`${P}healthcheck-unhealthy-threshold`]: "4",
        [`${P}healthcheck-timeout`]: "6",
        [`${P}healthcheck-interval`]: "30",
        [`${P}additional-resource-tags`]: "team=web, cost-center=42,empty=",
        [`${P}cross-zone-load-balancing-enabled`]: "true",
        [`${P}connection-draining-enabled`]: "true",
        [`${P}connection-draining-timeout`]: "120",
        [`${P}connection-idle-timeout`]: "300",
        [`${P}access-log-enabled`]: "true",
        [`${P}access-log-emit-interval`]: "5",
        [`${P}access-log-s3-bucket-name`]: "logs",
        [`${P}access-log-s3-bucket-prefix`]: "elb",
        [`${P}extra-security-groups`]: "sg-01,sg-02",
        [`${P}subnets`]: "subnet-01, public-a",
        [`${P}target-node-labels`]: "role=edge,zone=a",
        [`${P}backend-protocol`]: "tcp",
        "service.beta.kubernetes.io/load-balancer-source-ranges": "10.0.0.0/8, 192.168.0.0/16",
      }),
    );
    expect(options).toMatchObject({
      internal: true,
      sourceRanges: ["10.0.0.0/8", "192.168.0.0/16"],
      healthCheck: {
        protocol: "HTTP",
        port: "traffic-port",
        path: "/ready",
        healthyThreshold: 3,
        unhealthyThreshold: 4,
        timeout: 6,
        interval: 30,
      },
      extraTags: { team: "web", "cost-center": "42", empty: "" },
      crossZone: true,
      drainingEnabled: true,
      drainingTimeout: 120,
      idleTimeout: 300,
      accessLog: { enabled: true, interval: 5, bucket: "logs", prefix: "elb" },
      extraSecurityGroups: ["sg-01", "sg-02"],
      subnets: ["subnet-01", "public-a"],
      targetNodeLabels: { role: "edge", zone: "a" },
      warnings: [],
    });
  });

  test.each([
    ["false", false, false],
    ["", false, false],
    ["true", true, false],
    ["False", true, true],
    ["0", true, true],
    ["TRUE", true, false],
    ["0.0.0.0/0", true, true],
    ["yes", true, true],
    ["maybe", true, true],
  ])("internal=%p → internal %p, warned %p", (value, internal, warned) => {
    const options = parseLbOptions(service({ [`${P}internal`]: value }));
    expect(options.internal).toBe(internal);
    const warnings = options.warnings.filter((w) => w.reason === "InvalidAnnotation");
    expect(warnings.length > 0).toBe(warned);
    if (warned)
      expect(warnings[0]!.message).toMatch(
        new RegExp(`internal: ${JSON.stringify(value)} is not (a boolean|"false"); read as true`),
      );
  });

  test("spec.loadBalancerSourceRanges wins over the annotation", () => {
    const options = parseLbOptions(
      service(
        { "service.beta.kubernetes.io/load-balancer-source-ranges": "10.0.0.0/8" },
        { loadBalancerSourceRanges: ["203.0.113.0/24"] },
      ),
    );
    expect(options.sourceRanges).toEqual(["203.0.113.0/24"]);
  });

  test('"" (as Helm renders an unset value) is absent where upstream reads only non-empty values', () => {
    const names = [
      ...["proxy-protocol", "healthcheck-path", "backend-protocol", "ssl-cert"],
      ...["cross-zone-load-balancing-enabled", "connection-idle-timeout"],
      ...["connection-draining-enabled", "connection-draining-timeout"],
      ...["enabled", "emit-interval", "s3-bucket-name", "s3-bucket-prefix"].map((n) => `access-log-${n}`),
    ];
    const options = parseLbOptions(service(Object.fromEntries(names.map((n) => [`${P}${n}`, ""]))));
    expect(options).toMatchObject({ healthCheck: { path: undefined }, accessLog: {}, warnings: [] });
    expect(options.listener).toEqual({ proxyProtocol: false });
    for (const key of ["crossZone", "drainingEnabled", "drainingTimeout", "idleTimeout"] as const)
      expect(options[key]).toBeUndefined();
    expect(Object.values(options.accessLog).filter((v) => v !== undefined)).toEqual([]);
    const nlb = parseLbOptions(service({ [`${P}type`]: "nlb", [`${P}proxy-protocol`]: "" }));
    expect(nlb.targetGroupAttributes).toEqual({});
  });

  test("healthcheck-timeout is checked against the kind's own defaults", () => {
    const nlb = { [`${P}type`]: "nlb" };
    const timeout = (t: string) => ({ [`${P}healthcheck-timeout`]: t });
    expect(parseLbOptions(service({ ...nlb, ...timeout("20") })).healthCheck.timeout).toBe(20);
    const long = { ...nlb, ...timeout("100"), [`${P}healthcheck-interval`]: "120" };
    expect(parseLbOptions(service(long)).healthCheck.timeout).toBe(100);
    expect(() => parseLbOptions(service({ ...nlb, ...timeout("30") }))).toThrow(/less than the interval \(30 s\)/);
    const local = { externalTrafficPolicy: "Local" as const, healthCheckNodePort: 32000 };
    expect(() => parseLbOptions(service({ ...nlb, ...timeout("10") }, local))).toThrow(/interval \(10 s\)/);
    expect(() => parseLbOptions(service(timeout("20")))).toThrow(/less than the interval \(10 s\)/);
    expect(() => parseLbOptions(service({ ...timeout("100"), [`${P}healthcheck-interval`]: "120" }))).toThrow(
      /expected a whole number from 2 to 60/,
    );
  });

  test("booleans read as Go's strconv.ParseBool, as upstream", () => {
    const on = parseLbOptions(
      service({ [`${P}cross-zone-load-balancing-enabled`]: "1", [`${P}access-log-enabled`]: "T" }),
    );
    expect(on).toMatchObject({ crossZone: true, accessLog: { enabled: true } });
    const off = parseLbOptions(service({ [`${P}connection-draining-enabled`]: "FALSE" }));
    expect(off.drainingEnabled).toBe(false);
    const nlb = { [`${P}type`]: "nlb", [`${P}manage-backend-security-group-rules`]: "f" };
    expect(parseLbOptions(service(nlb)).manageBackendRules).toBe(false);
  });

  test.each([
    [
      "healthcheck-healthy-threshold",
      "1",
      /healthcheck-healthy-threshold: invalid value "1": expected a whole number from 2 to 10/,
    ],
    ["healthcheck-interval", "fast", /healthcheck-interval: invalid value "fast"/],
    ["healthcheck-timeout", "10", /healthcheck-timeout: invalid value "10": must be less than the interval/],
    ["healthcheck-protocol", "udp", /healthcheck-protocol: invalid value "UDP"/],
    ["healthcheck-port", "70000", /healthcheck-port: invalid value "70000"/],
    ["healthcheck-path", "ready", /healthcheck-path: invalid value "ready"/],
    [
      "cross-zone-load-balancing-enabled",
      "yes",
      /cross-zone-load-balancing-enabled: invalid value "yes": expected true or false/,
    ],
    ["connection-draining-timeout", "0", /connection-draining-timeout: invalid value "0"/],
    ["connection-idle-timeout", "4001", /connection-idle-timeout: invalid value "4001"/],
    ["access-log-emit-interval", "10", /access-log-emit-interval: invalid value "10": expected 5 or 60/],
    [
      "additional-resource-tags",
      "aws:x=1",
      /additional-resource-tags: invalid value "aws:x": tag keys starting with aws: are reserved/,
    ],
    ["additional-resource-tags", "=1", /additional-resource-tags: invalid value "=1"/],
    ["target-node-labels", "=edge", /target-node-labels: invalid value "=edge"/],
    ["security-groups", "web", /security-groups: invalid value "web": not a security group ID/],
    ["type", "alb", /type: invalid value "alb"/],
    ["ssl-cert", "arn:aws:acm:us-west-2:1:certificate/x", /ssl-cert: invalid value .*expected an ACM certificate ARN/],
    ["proxy-protocol", "true", /proxy-protocol: invalid value "true": the only supported value is "\*"/],
    ["backend-protocol", "grpc", /backend-protocol: invalid value "grpc": expected http, https, ssl or tcp/],
  ])("%s=%p is refused with a message naming both", (name, value, message) => {
    expect(() => parseLbOptions(service({ [`${P}${name}`]: value }))).toThrow(message);
  });

  test("a bad source range names where it came from", () => {
    expect(() =>
      parseLbOptions(service({ "service.beta.kubernetes.io/load-balancer-source-ranges": "10.0.0.0/33" })),
    ).toThrow(/load-balancer-source-ranges: invalid value "10.0.0.0\/33"/);
  });

  test.each(["nlb-ip", "external"])("type=%s belongs to the AWS Load Balancer Controller", (type) => {
    expect(() => parseLbOptions(service({ [`${P}type`]: type }))).toThrow(ImplementedElsewhereError);
  });

  test("NLB-only and unknown annotations are harmless: warnings naming them", () => {
    const { warnings } = parseLbOptions(
      service({ [`${P}eip-allocations`]: "eipalloc-1", [`${P}frobnicate`]: "yes", "example.com/other": "x" }),
    );
    expect(warnings).toEqual([
      {
        reason: "UnsupportedAnnotation",
        message: `annotation ${P}eip-allocations only applies to network load balancers; ignored for this classic ELB`,
      },
      {
        reason: "UnsupportedAnnotation",
        message: `annotation ${P}frobnicate is not supported by this provider; ignored`,
      },
    ]);
  });
});

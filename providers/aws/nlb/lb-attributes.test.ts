import { describe, expect, test } from "bun:test";
import type { Service } from "../../../src/kube/objects.ts";
import { parseLbOptions } from "../lb-annotations.ts";
import { desiredLbAttributes, lbAttributeChanges } from "./lb-attributes.ts";

const P = "service.beta.kubernetes.io/aws-load-balancer-";

const options = (annotations: Record<string, string>): ReturnType<typeof parseLbOptions> =>
  parseLbOptions({
    metadata: { name: "web", namespace: "ns", uid: "u", annotations: { [`${P}type`]: "nlb", ...annotations } },
    spec: { type: "LoadBalancer", ports: [{ port: 80, nodePort: 30080 }] },
  } satisfies Service);

const LOGS = {
  [`${P}access-log-enabled`]: "true",
  [`${P}access-log-s3-bucket-name`]: "logs",
  [`${P}access-log-s3-bucket-prefix`]: "nlb/web",
};

describe("NLB load balancer attributes (upstream's reconcileLBAttributes)", () => {
  test.each([
    ["none: both off", {}, { "load_balancing.cross_zone.enabled": "false", "access_logs.s3.enabled": "false" }],
    [
      "access logs on, with bucket and prefix",
      LOGS,
      {
        "load_balancing.cross_zone.enabled": "false",
        "access_logs.s3.enabled": "true",
        "access_logs.s3.bucket": "logs",
        "access_logs.s3.prefix": "nlb/web",
      },
    ],
    [
      "access logs on without a prefix: the prefix emptied",
      { [`${P}access-log-enabled`]: "1", [`${P}access-log-s3-bucket-name`]: "logs" },
      {
        "load_balancing.cross_zone.enabled": "false",
        "access_logs.s3.enabled": "true",
        "access_logs.s3.bucket": "logs",
        "access_logs.s3.prefix": "",
      },
    ],
    [
      "access logs off: bucket and prefix left alone",
      { ...LOGS, [`${P}access-log-enabled`]: "false", [`${P}cross-zone-load-balancing-enabled`]: "true" },
      { "load_balancing.cross_zone.enabled": "true", "access_logs.s3.enabled": "false" },
    ],
  ])("%s", (_, annotations, expected) => {
    const o = options(annotations);
    expect(desiredLbAttributes(o)).toEqual(expected);
    expect(o.warnings).toEqual([]);
  });

  test("the emit interval is a classic-ELB setting: a warning on an NLB", () => {
    expect(options({ ...LOGS, [`${P}access-log-emit-interval`]: "5" }).warnings.map((w) => w.message)).toEqual([
      `annotation ${P}access-log-emit-interval only applies to classic ELBs; ignored for this network load balancer`,
    ]);
  });

  test("only what differs is written; a missing attribute counts as empty", () => {
    const current = [
      { Key: "load_balancing.cross_zone.enabled", Value: "false" },
      { Key: "access_logs.s3.enabled", Value: "false" },
      { Key: "access_logs.s3.bucket", Value: "old" },
      { Key: "deletion_protection.enabled", Value: "false" },
    ];
    expect(lbAttributeChanges(current, desiredLbAttributes(options(LOGS)))).toEqual([
      { Key: "access_logs.s3.enabled", Value: "true" },
      { Key: "access_logs.s3.bucket", Value: "logs" },
      { Key: "access_logs.s3.prefix", Value: "nlb/web" },
    ]);
    expect(lbAttributeChanges(current, desiredLbAttributes(options({})))).toEqual([]);
  });
});

import { describe, expect, test } from "bun:test";
import type { ServicePort } from "../../../src/kube/objects.ts";
import type { ListenerOptions } from "../lb-listener-options.ts";
import { nlbListener, type NlbListenerSpec } from "./plan.ts";
import { readTargetGroupAttributes, targetGroupAttributeChanges } from "./target-group-attributes.ts";

const read = (value?: string) => (name: string) => (name === "target-group-attributes" ? value : undefined);

describe("NLB target group attributes", () => {
  test.each([
    [undefined, false, {}],
    [
      "preserve_client_ip.enabled=false, deregistration_delay.timeout_seconds=0",
      false,
      { "preserve_client_ip.enabled": "false", "deregistration_delay.timeout_seconds": "0" },
    ],
    [undefined, true, { "proxy_protocol_v2.enabled": "true" }],
    [
      "stickiness.enabled=true,stickiness.type=source_ip",
      true,
      { "stickiness.enabled": "true", "stickiness.type": "source_ip", "proxy_protocol_v2.enabled": "true" },
    ],
    [
      "load_balancing.cross_zone.enabled=use_load_balancer_configuration",
      false,
      { "load_balancing.cross_zone.enabled": "use_load_balancer_configuration" },
    ],
  ] as [string | undefined, boolean, Record<string, string>][])("%p (proxy protocol %p)", (value, proxy, expected) => {
    expect(readTargetGroupAttributes(read(value), proxy)).toEqual(expected);
  });

  test.each([
    ["deregistration_delay.timeout_seconds=3601", false, /must be 0 to 3600/],
    ["stickiness.type=lb_cookie", false, /must be source_ip/],
    ["foo.bar=1", false, /unknown key foo.bar; expected one of deregistration_delay.timeout_seconds/],
    ["proxy_protocol_v2.enabled", false, /expected key=value pairs/],
    ["proxy_protocol_v2.enabled=false", true, /contradicts proxy-protocol/],
  ] as [string, boolean, RegExp][])("%p is refused", (value, proxy, message) => {
    expect(() => readTargetGroupAttributes(read(value), proxy)).toThrow(message);
  });

  test("changes: differing wanted keys, and defaults restored for keys no longer named", () => {
    const current = [
      { Key: "deregistration_delay.timeout_seconds", Value: "30" },
      { Key: "proxy_protocol_v2.enabled", Value: "true" },
      { Key: "preserve_client_ip.enabled", Value: "true" },
    ];
    expect(targetGroupAttributeChanges(current, { "preserve_client_ip.enabled": "false" })).toEqual([
      { Key: "deregistration_delay.timeout_seconds", Value: "300" },
      { Key: "preserve_client_ip.enabled", Value: "false" },
      { Key: "proxy_protocol_v2.enabled", Value: "false" },
    ]);
    expect(
      targetGroupAttributeChanges(current, {
        "deregistration_delay.timeout_seconds": "30",
        "proxy_protocol_v2.enabled": "true",
      }),
    ).toEqual([]);
    expect(targetGroupAttributeChanges([], {})).toEqual([]);
  });
});

describe("NLB listeners", () => {
  const tls = {
    certificate: "arn:aws:acm:us-west-2:123456789012:certificate/abc",
    ports: { numbers: [443], names: [] },
    policy: "ELBSecurityPolicy-2016-08",
  };
  test.each([
    ["plain TCP", { port: 443 }, { proxyProtocol: false }, { protocol: "TCP" }],
    ["UDP never TLS", { port: 443, protocol: "UDP" as const }, { tls, proxyProtocol: false }, { protocol: "UDP" }],
    [
      "TLS port",
      { port: 443 },
      { tls, proxyProtocol: false, alpnPolicy: "HTTP2Only" },
      { protocol: "TLS", certificate: tls.certificate, sslPolicy: tls.policy, alpnPolicy: "HTTP2Only" },
    ],
    ["port not in ssl-ports", { port: 53 }, { tls, proxyProtocol: false }, { protocol: "TCP" }],
  ] as [string, ServicePort, ListenerOptions, NlbListenerSpec][])("%s", (_title, port, options, expected) => {
    expect(nlbListener(port, options)).toEqual(expected);
  });
});

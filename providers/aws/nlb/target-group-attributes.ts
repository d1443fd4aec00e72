/**
 * `aws-load-balancer-target-group-attributes` for NLB target groups (`key=value,…`). Upstream's
 * (`validateServiceAnnotationTargetGroupAttributes`) takes only `preserve_client_ip.enabled` and
 * `proxy_protocol_v2.enabled` and leaves a dropped key as it is; this one takes every key AWS defines for
 * network target groups (the AWS Load Balancer Controller's set), each with its value checked, and a key
 * the annotation stops naming goes back to its AWS default, so the target group follows the Service.
 * Beyond upstream (whose NLB path ignores it), `proxy-protocol: "*"` means `proxy_protocol_v2.enabled=true`.
 */
import type { TargetGroupAttribute } from "@aws-sdk/client-elastic-load-balancing-v2";
import { badAnnotation as bad, readMap, type Read } from "../lb-annotation-values.ts";

type Check = (value: string) => boolean;
const bool: Check = (v) => v === "true" || v === "false";
const range =
  (min: number, max: number): Check =>
  (v) =>
    /^\d+$/.test(v) && Number(v) >= min && Number(v) <= max;

interface Key {
  readonly check: Check;
  readonly expected: string;
  /** AWS's value for a new instance target group; undefined: left alone when not named. */
  readonly default?: string;
}

const KEYS: Readonly<Record<string, Key>> = {
  "deregistration_delay.timeout_seconds": { check: range(0, 3600), expected: "0 to 3600", default: "300" },
  "deregistration_delay.connection_termination.enabled": { check: bool, expected: "true or false", default: "false" },
  "preserve_client_ip.enabled": { check: bool, expected: "true or false" },
  "proxy_protocol_v2.enabled": { check: bool, expected: "true or false", default: "false" },
  "stickiness.enabled": { check: bool, expected: "true or false", default: "false" },
  "stickiness.type": { check: (v) => v === "source_ip", expected: "source_ip" },
  "load_balancing.cross_zone.enabled": {
    check: (v) => ["true", "false", "use_load_balancer_configuration"].includes(v),
    expected: "true, false or use_load_balancer_configuration",
  },
  "target_health_state.unhealthy.connection_termination.enabled": { check: bool, expected: "true or false" },
  "target_health_state.unhealthy.draining_interval_seconds": { check: range(0, 360000), expected: "0 to 360000" },
};

const NAME = "target-group-attributes";

/** The attributes the Service asks for; throws naming the annotation, key and allowed values. */
export function readTargetGroupAttributes(read: Read, proxyProtocol: boolean): Record<string, string> {
  const given = readMap(read, NAME, false);
  for (const [key, value] of Object.entries(given)) {
    const spec = KEYS[key];
    if (!spec)
      throw bad(NAME, `${key}=${value}`, `unknown key ${key}; expected one of ${Object.keys(KEYS).join(", ")}`);
    if (!spec.check(value)) throw bad(NAME, `${key}=${value}`, `${key} must be ${spec.expected}`);
  }
  if (proxyProtocol && given["proxy_protocol_v2.enabled"] === "false") {
    throw bad(NAME, "proxy_protocol_v2.enabled=false", `contradicts proxy-protocol "*"`);
  }
  return proxyProtocol ? { ...given, "proxy_protocol_v2.enabled": "true" } : given;
}

/**
 * Upstream's check against the Service's ports (AWS refuses it too, at ModifyTargetGroupAttributes):
 * client IP preservation cannot be turned off on a UDP target group.
 */
export function checkAttributesForPorts(
  attributes: Readonly<Record<string, string>>,
  ports: readonly { protocol?: string }[],
): void {
  if (attributes["preserve_client_ip.enabled"] === "false" && ports.some((p) => p.protocol === "UDP"))
    throw bad(NAME, "preserve_client_ip.enabled=false", "client IP preservation cannot be disabled for UDP ports");
}

/**
 * The attributes to write: every wanted key whose value differs, and every defaulted key the Service no
 * longer names whose current value is not the default.
 */
export function targetGroupAttributeChanges(
  current: readonly TargetGroupAttribute[],
  wanted: Readonly<Record<string, string>>,
): TargetGroupAttribute[] {
  const have = new Map(current.map((a) => [a.Key ?? "", a.Value ?? ""]));
  const changes: TargetGroupAttribute[] = [];
  for (const [key, spec] of Object.entries(KEYS)) {
    const want = wanted[key] ?? spec.default;
    if (want === undefined) continue;
    const now = have.get(key) ?? spec.default;
    if (now !== want) changes.push({ Key: key, Value: want });
  }
  return changes;
}

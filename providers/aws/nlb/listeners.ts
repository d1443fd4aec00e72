/**
 * NLB listeners, one per Service port: TCP or UDP, or TLS with the certificate, the negotiation policy as
 * SslPolicy and the ALPN policy. A listener whose settings differ is modified in place (same port, same
 * NLB); one whose port the Service no longer has is deleted.
 */
import type { CreateListenerInput, Listener } from "@aws-sdk/client-elastic-load-balancing-v2";
import type { AwsApi } from "../api.ts";
import type { NlbListenerSpec } from "./plan.ts";

export interface WantedListener {
  /** The target group it forwards to. */
  readonly arn: string;
  readonly spec: NlbListenerSpec;
}

type Settings = Pick<CreateListenerInput, "Protocol" | "Certificates" | "SslPolicy" | "AlpnPolicy" | "DefaultActions">;

export function listenerSettings(want: WantedListener): Settings {
  const { spec } = want;
  return {
    Protocol: spec.protocol,
    ...(spec.certificate ? { Certificates: [{ CertificateArn: spec.certificate }] } : {}),
    ...(spec.sslPolicy ? { SslPolicy: spec.sslPolicy } : {}),
    ...(spec.alpnPolicy ? { AlpnPolicy: [spec.alpnPolicy] } : {}),
    DefaultActions: [{ Type: "forward", TargetGroupArn: want.arn }],
  };
}

/**
 * Whether `l` differs from `want`; SslPolicy and ALPN count only when the Service names them (AWS fills in defaults).
 */
export function listenerDiffers(l: Listener, want: WantedListener): boolean {
  const { spec } = want;
  const optional = (have: string | undefined, wanted: string | undefined): boolean =>
    wanted !== undefined && have !== wanted;
  return [
    l.DefaultActions?.[0]?.TargetGroupArn !== want.arn,
    l.Protocol !== spec.protocol,
    l.Certificates?.[0]?.CertificateArn !== spec.certificate,
    optional(l.SslPolicy, spec.sslPolicy),
    optional(l.AlpnPolicy?.[0], spec.alpnPolicy),
  ].some(Boolean);
}

/** Deletes a listener nobody wants, or brings it to the wanted settings. */
async function syncListener(
  api: AwsApi,
  l: Listener,
  want: WantedListener | undefined,
  signal?: AbortSignal,
): Promise<void> {
  if (!want) await api.elbv2.deleteListener({ ListenerArn: l.ListenerArn }, signal);
  else if (listenerDiffers(l, want))
    await api.elbv2.modifyListener({ ListenerArn: l.ListenerArn, ...listenerSettings(want) }, signal);
}

/** The NLB's listeners as `wanted`; new ones get the NLB's `tags` (upstream's `createListenerV2`). */
export async function syncListeners(
  api: AwsApi,
  { lbArn, tags }: { lbArn: string; tags: readonly { Key: string; Value: string }[] },
  wanted: ReadonlyMap<number, WantedListener>,
  signal?: AbortSignal,
): Promise<void> {
  const listeners = (await api.elbv2.describeListeners({ LoadBalancerArn: lbArn }, signal)).Listeners ?? [];
  for (const l of listeners) await syncListener(api, l, wanted.get(l.Port ?? 0), signal);
  for (const [port, want] of wanted) {
    if (listeners.some((l) => l.Port === port)) continue;
    await api.elbv2.createListener(
      { LoadBalancerArn: lbArn, Port: port, ...listenerSettings(want), Tags: [...tags] },
      signal,
    );
  }
}

/**
 * Certificates from moto's ACM for TLS listener tests, and a recorder of the requests sent. The project has no ACM
 * client (the provider never
 * calls ACM), so this speaks ACM's JSON protocol directly; moto reads the region from the credential scope
 * and does not check signatures.
 */
import type { AwsProviderOptions } from "../../providers/aws/provider.ts";
import type { LoadBalancer } from "../../src/cloud/provider.ts";
import { awsTestProvider, loadBalancerBed, REGION, type AwsTestCloud, type LoadBalancerBed } from "./aws-cloud.ts";
import { faultProxy } from "./aws-faults.ts";

async function acm<T>(endpoint: string, action: string, body: unknown): Promise<T> {
  const response = await fetch(endpoint, {
    method: "POST",
    headers: {
      "Content-Type": "application/x-amz-json-1.1",
      "X-Amz-Target": `CertificateManager.${action}`,
      Authorization: `AWS4-HMAC-SHA256 Credential=testing/20260101/${REGION}/acm/aws4_request, SignedHeaders=host, Signature=0`,
    },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`ACM ${action}: HTTP ${response.status}: ${await response.text()}`);
  return (await response.json()) as T;
}

/** A new certificate for `domain` in moto's ACM; resolves its ARN. */
export async function acmCertificate(endpoint: string, domain: string): Promise<string> {
  return (await acm<{ CertificateArn: string }>(endpoint, "RequestCertificate", { DomainName: domain })).CertificateArn;
}

export interface TlsBed extends LoadBalancerBed {
  /** An ACM certificate for `domain`. */
  readonly cert: string;
}

/** `loadBalancerBed` plus a certificate in moto's ACM. */
export async function tlsBed(domain: string): Promise<TlsBed> {
  const bed = await loadBalancerBed();
  return { ...bed, cert: await acmCertificate(bed.cloud.endpoint, domain) };
}

/**
 * The form bodies of every AWS request `run` makes through a provider whose calls pass a recording proxy
 * in front of moto: for checking what the SDK sends where moto's answers cannot show it.
 */
export async function requestsOf(
  cloud: AwsTestCloud,
  run: (lb: LoadBalancer) => Promise<void>,
  options: AwsProviderOptions = {},
): Promise<string[]> {
  const bodies: string[] = [];
  const proxy = faultProxy(cloud.endpoint, (_n, body) => {
    bodies.push(body);
    return "pass";
  });
  try {
    await run(
      awsTestProvider(cloud, { endpoint: proxy.endpoint, options: { cacheMaxAgeMs: 0, ...options } }).loadBalancer!,
    );
  } finally {
    await proxy.stop();
  }
  return bodies;
}

/** The parameters of the first request for `action` among `bodies`. */
export function requestFor(bodies: readonly string[], action: string): URLSearchParams {
  return new URLSearchParams(bodies.find((b) => b.includes(`Action=${action}&`)) ?? "");
}

/**
 * Certificates from moto's ACM for TLS listener tests. The project has no ACM client (the provider never
 * calls ACM), so this speaks ACM's JSON protocol directly; moto reads the region from the credential scope
 * and does not check signatures.
 */
import { REGION } from "./aws-cloud.ts";

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

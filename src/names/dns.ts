/** The shapes of Kubernetes object names (apimachinery's IsDNS1123Subdomain / IsDNS1123Label). */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** RFC 1123 subdomain, the shape of Node, Namespace and Lease names. */
export function isDnsSubdomain(text: string): boolean {
  return text.length > 0 && text.length <= 253 && text.split(".").every((label) => DNS_LABEL.test(label));
}

export function isDnsLabel(text: string): boolean {
  return text.length <= 63 && DNS_LABEL.test(text);
}

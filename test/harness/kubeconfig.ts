/** Kubeconfigs for a process that cannot read the harness's certificate files (another host, a container). */
import { readFileSync } from "node:fs";

/** The harness's kubeconfig with its certificates embedded, as kubeadm writes them. */
export function embeddedKubeconfig(path: string): string {
  const config = JSON.parse(readFileSync(path, "utf8")) as {
    clusters: { cluster: Record<string, string> }[];
    users: { user: Record<string, string> }[];
  };
  const embed = (o: Record<string, string>, key: string): void => {
    if (o[key] === undefined) return;
    o[`${key}-data`] = readFileSync(o[key]).toString("base64");
    delete o[key];
  };
  for (const { cluster } of config.clusters) embed(cluster, "certificate-authority");
  for (const { user } of config.users) ["client-certificate", "client-key"].forEach((k) => embed(user, k));
  return JSON.stringify(config, null, 2);
}

/**
 * Kubeconfigs for tests: one naming a client certificate by file, and the harness's with its certificates
 * embedded, for a process that cannot read the harness's files (another host, a container).
 */
import { readFileSync, writeFileSync } from "node:fs";

/** Writes, at `path`, a kubeconfig for the harness's API server whose user is the given certificate files. */
export function clientCertKubeconfig(
  path: string,
  cp: { readonly server: string; readonly caFile: string },
  user: { readonly name: string; readonly certFile: string; readonly keyFile: string },
): string {
  const config = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "c", cluster: { server: cp.server, "certificate-authority": cp.caFile } }],
    users: [{ name: user.name, user: { "client-certificate": user.certFile, "client-key": user.keyFile } }],
    contexts: [{ name: user.name, context: { cluster: "c", user: user.name } }],
    "current-context": user.name,
  };
  writeFileSync(path, JSON.stringify(config));
  return path;
}

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

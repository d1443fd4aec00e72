/**
 * vCenter credentials as vsphere.conf names them: inline, from a Secret (upstream's layout: keys
 * `<server>.username` and `<server>.password`), or from files in a mounted Secret's directory. Secrets are
 * read again at every login, so a rotated password takes effect at the next session.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { KubeApi, Resource } from "../../src/kube/api.ts";
import type { KubeObject } from "../../src/kube/objects.ts";
import type { Login } from "./api.ts";
import type { Credentials } from "./vcenter-config.ts";

const SECRETS: Resource = { group: "", version: "v1", plural: "secrets", kind: "Secret", namespaced: true };

interface Secret extends KubeObject {
  readonly data?: Readonly<Record<string, string>>;
}

function pick(data: Readonly<Record<string, string>>, key: string, where: string): string {
  const value = data[key];
  if (value === undefined || value === "") throw new Error(`${where} has no ${key}`);
  return value;
}

/**
 * A `login` for the API: `kube` is available once the provider is initialised (leader only), so a
 * Secret-backed login before that fails (and is retried), never guesses.
 */
export function credentialSource(
  credentials: Credentials,
  server: string,
  kube: () => KubeApi | undefined,
): () => Promise<Login> {
  const keys = { user: `${server}.username`, password: `${server}.password` };
  switch (credentials.kind) {
    case "inline":
      return () => Promise.resolve({ username: credentials.username, password: credentials.password });
    case "directory":
      return () => {
        const read = (key: string): string => readFileSync(join(credentials.path, key), "utf8").trim();
        return Promise.resolve({ username: read(keys.user), password: read(keys.password) });
      };
    case "secret":
      return async () => {
        const api = kube();
        const where = `Secret ${credentials.namespace}/${credentials.name}`;
        if (!api) throw new Error(`${where} is read once this replica leads; no vCenter login before that`);
        const secret = await api.get<Secret>(SECRETS, credentials.name, { namespace: credentials.namespace });
        const decode = (key: string): string =>
          Buffer.from(pick(secret.data ?? {}, key, where), "base64").toString("utf8");
        return { username: decode(keys.user), password: decode(keys.password) };
      };
  }
}

/**
 * vCenter credentials as vsphere.conf names them: inline, from a Secret, or from files in a mounted
 * Secret's directory. Secrets are read again at every login, so a rotated password takes effect at the
 * next session. A Secret (or directory) holds upstream's layouts: keys `<server>.username` and
 * `<server>.password`, or (for servers whose names cannot be keys, such as IPv6 addresses) `server_<n>`
 * naming the server with `username_<n>` and `password_<n>`; one trailing newline is dropped from each
 * value, as upstream's credential manager does.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { KubeApi, Resource } from "../../src/kube/api.ts";
import type { KubeObject } from "../../src/kube/objects.ts";
import type { Login } from "./api.ts";
import type { Credentials } from "./vcenter-config.ts";

const SECRETS: Resource = { group: "", version: "v1", plural: "secrets", kind: "Secret", namespaced: true };

interface Secret extends KubeObject {
  readonly data?: Readonly<Record<string, string>>;
}

const chomp = (value: string): string => (value.endsWith("\n") ? value.slice(0, -1) : value);

/** The login for `server` in a Secret's decoded data; an error naming the keys looked for. */
export function loginFrom(data: Readonly<Record<string, string>>, server: string, where: string): Login {
  const numbered = Object.keys(data).find((k) => k.startsWith("server_") && chomp(data[k] ?? "") === server);
  const [user, password] = numbered
    ? [`username_${numbered.slice("server_".length)}`, `password_${numbered.slice("server_".length)}`]
    : [`${server}.username`, `${server}.password`];
  const pick = (key: string): string => {
    const value = chomp(data[key] ?? "");
    if (value === "") throw new Error(`${where} has no ${key} (nor server_<n> = ${server} with its username_<n>)`);
    return value;
  };
  return { username: pick(user), password: pick(password) };
}

/** Whether a file named `name` can hold a login key for `server` (in either layout). */
const loginKey = (name: string, server: string): boolean =>
  name === `${server}.username` || name === `${server}.password` || /^(server|username|password)_/.test(name);

/**
 * The login keys of a mounted Secret. A kubelet-mounted volume also holds `..data` (a link to a folder)
 * and `..<timestamp>/`, and each key is a link into `..data`: names starting with `..` are skipped, and
 * a key is read only when it is (or links to) a file.
 */
function readDirectory(path: string, server: string): Record<string, string> {
  const names = readdirSync(path).filter((name) => !name.startsWith("..") && loginKey(name, server));
  const files = names.filter((name) => statSync(join(path, name), { throwIfNoEntry: false })?.isFile() === true);
  return Object.fromEntries(files.map((name) => [name, readFileSync(join(path, name), "utf8")]));
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
  switch (credentials.kind) {
    case "inline":
      return () => Promise.resolve({ username: credentials.username, password: credentials.password });
    case "directory":
      return () =>
        Promise.resolve(loginFrom(readDirectory(credentials.path, server), server, `directory ${credentials.path}`));
    case "secret":
      return async () => {
        const api = kube();
        const where = `Secret ${credentials.namespace}/${credentials.name}`;
        if (!api) throw new Error(`${where} is read once this replica leads; no vCenter login before that`);
        const secret = await api.get<Secret>(SECRETS, credentials.name, { namespace: credentials.namespace });
        const decoded = Object.entries(secret.data ?? {}).map(([k, v]): [string, string] => [
          k,
          Buffer.from(v, "base64").toString(),
        ]);
        return loginFrom(Object.fromEntries(decoded), server, where);
      };
  }
}

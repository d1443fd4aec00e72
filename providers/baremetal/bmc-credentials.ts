/**
 * BMC credentials: from a Secret with keys `username` and `password` (metal3's layout), read with the
 * manager's own API client, or from files of those names in a mounted Secret's directory. The power
 * lookup keeps what it read for a while and reads again after the BMC refuses it, so a rotated password
 * takes effect without a restart.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { KubeApi, Resource } from "../../src/kube/api.ts";
import type { KubeObject } from "../../src/kube/objects.ts";
import type { BmcCredentials } from "./bmc-config.ts";
import type { Login } from "./redfish-api.ts";

const SECRETS: Resource = { group: "", version: "v1", plural: "secrets", kind: "Secret", namespaced: true };

interface Secret extends KubeObject {
  readonly data?: Readonly<Record<string, string>>;
}

export interface CredentialDeps {
  /** The manager's client; available once this replica leads (the provider's initialize). */
  readonly kube: () => KubeApi | undefined;
  /** The namespace of a Secret named without one: the manager's own. */
  readonly namespace: string;
  readonly readFile?: (path: string) => string;
}

/** A stable key per credential source, for caching. */
export function credentialKey(credentials: BmcCredentials, namespace: string): string {
  switch (credentials.kind) {
    case "secret":
      return `secret:${credentials.namespace || namespace}/${credentials.name}`;
    case "directory":
      return `directory:${credentials.path}`;
    case "none":
      return "none";
  }
}

function decoded(data: Readonly<Record<string, string>>, key: string, where: string): string {
  const value = data[key];
  if (value === undefined || value === "") throw new Error(`${where} has no ${key}`);
  return Buffer.from(value, "base64").toString("utf8");
}

/** Reads the credentials now; throws (an "unknown" for the nodes concerned) when they cannot be read. */
export async function readCredentials(credentials: BmcCredentials, deps: CredentialDeps): Promise<Login | undefined> {
  switch (credentials.kind) {
    case "none":
      return undefined;
    case "directory": {
      const read = deps.readFile ?? ((path: string): string => readFileSync(path, "utf8"));
      const file = (key: string): string => read(join(credentials.path, key)).trim();
      return { username: file("username"), password: file("password") };
    }
    case "secret": {
      const namespace = credentials.namespace || deps.namespace;
      const where = `Secret ${namespace}/${credentials.name}`;
      const api = deps.kube();
      if (!api) throw new Error(`${where} is read once this replica leads; no BMC is asked before that`);
      const secret = await api.get<Secret>(SECRETS, credentials.name, { namespace });
      return {
        username: decoded(secret.data ?? {}, "username", where),
        password: decoded(secret.data ?? {}, "password", where),
      };
    }
  }
}

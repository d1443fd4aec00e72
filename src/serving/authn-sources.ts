/**
 * Where the client CA and the request-header settings come from, as upstream's delegated
 * authentication takes them: the flags first (`--client-ca-file`, `--requestheader-*`); what they leave
 * unset is read from the ConfigMap `kube-system/extension-apiserver-authentication` that kube-apiserver
 * publishes, unless `--authentication-skip-lookup`. The ConfigMap is read again every minute, so a
 * rotated CA is picked up without a restart. A ConfigMap the manager may not read (RBAC) is logged
 * with the fix and tolerated, as upstream; another failure at start is fatal unless
 * `--authentication-tolerate-lookup-failure`.
 */
import { readFileSync } from "node:fs";
import type { ClientAuthFlags } from "../config/config.ts";
import { CONFIG_MAPS, type KubeApi } from "../kube/api.ts";
import { KubeApiError } from "../kube/transport.ts";
import { errorMessage } from "../kube/worker.ts";
import type { Logger } from "../log/logger.ts";
import { parseBundle, type ClientCertAuth, type RequestHeaderAuth } from "./client-auth.ts";

export type { ClientAuthFlags };

/** The PEM bundles and the settings built from them. */
export interface ClientAuthSource {
  readonly auth: ClientCertAuth;
  readonly pems: readonly string[];
}

const NAMESPACE = "kube-system";
const NAME = "extension-apiserver-authentication";
const REFRESH_MS = 60_000;

type Data = Readonly<Record<string, string>>;

function jsonList(data: Data, key: string): string[] {
  try {
    const parsed: unknown = JSON.parse(data[key] ?? "[]");
    return Array.isArray(parsed) ? parsed.map(String) : [];
  } catch {
    return [];
  }
}

function requestHeaderFrom(pem: string, data: Data | undefined, f: ClientAuthFlags): RequestHeaderAuth | undefined {
  if (pem === "") return undefined;
  const fromFlags = data === undefined;
  return {
    ca: parseBundle(pem),
    allowedNames: fromFlags ? f.requestHeaderAllowedNames : jsonList(data, "requestheader-allowed-names"),
    usernameHeaders: fromFlags ? f.requestHeaderUsernameHeaders : jsonList(data, "requestheader-username-headers"),
    uidHeaders: fromFlags ? f.requestHeaderUIDHeaders : jsonList(data, "requestheader-uid-headers"),
    groupHeaders: fromFlags ? f.requestHeaderGroupHeaders : jsonList(data, "requestheader-group-headers"),
    extraHeaderPrefixes: fromFlags
      ? f.requestHeaderExtraHeadersPrefix
      : jsonList(data, "requestheader-extra-headers-prefix"),
  };
}

/** Builds the settings from the flags' files and, for what they leave out, the ConfigMap's data. */
export function buildClientAuth(f: ClientAuthFlags, data: Data | undefined): ClientAuthSource {
  const clientPem = f.clientCAFile !== "" ? readFileSync(f.clientCAFile, "utf8") : (data?.["client-ca-file"] ?? "");
  const headerFromFlags = f.requestHeaderClientCAFile !== "";
  const headerPem = headerFromFlags
    ? readFileSync(f.requestHeaderClientCAFile, "utf8")
    : (data?.["requestheader-client-ca-file"] ?? "");
  return {
    auth: {
      clientCA: parseBundle(clientPem),
      requestHeader: requestHeaderFrom(headerPem, headerFromFlags ? undefined : data, f),
    },
    pems: [clientPem, headerPem].filter((p) => p !== ""),
  };
}

async function readData(api: KubeApi): Promise<Data | undefined> {
  try {
    const cm = await api.get<{ metadata: { name: string }; data?: Data }>(CONFIG_MAPS, NAME, { namespace: NAMESPACE });
    return cm.data ?? {};
  } catch (error) {
    if (error instanceof KubeApiError && error.status === 404) return undefined;
    throw error;
  }
}

function needsLookup(f: ClientAuthFlags): boolean {
  return !f.skipLookup && (f.clientCAFile === "" || f.requestHeaderClientCAFile === "");
}

/**
 * The current settings (a getter, refreshed in the background until `signal` aborts). Throws at start
 * only for a lookup failure that is neither Forbidden nor tolerated.
 */
export async function watchClientAuth(
  f: ClientAuthFlags,
  api: KubeApi,
  logger: Logger,
  signal: AbortSignal,
): Promise<() => ClientAuthSource> {
  let data: Data | undefined;
  if (needsLookup(f)) {
    try {
      data = await readData(api);
    } catch (error) {
      const forbidden = error instanceof KubeApiError && error.status === 403;
      if (!forbidden && !f.tolerateLookupFailure)
        throw new Error(`reading configmap ${NAMESPACE}/${NAME}: ${errorMessage(error)}`);
      logger.warn(
        `unable to get configmap/${NAME} in ${NAMESPACE} (${errorMessage(error)}); client certificates are checked against the flags' CAs only. Usually fixed by binding the Role extension-apiserver-authentication-reader in ${NAMESPACE}`,
      );
    }
  }
  let current = buildClientAuth(f, data);
  if (needsLookup(f)) {
    const timer = setInterval(() => {
      readData(api).then(
        (fresh) => void (current = buildClientAuth(f, fresh)),
        (error: unknown) => logger.debug(`refreshing configmap ${NAMESPACE}/${NAME}: ${errorMessage(error)}`),
      );
    }, REFRESH_MS);
    timer.unref();
    signal.addEventListener("abort", () => clearInterval(timer), { once: true });
  }
  return () => current;
}

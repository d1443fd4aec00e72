/**
 * What every generated file is made from: the manager's own validated flags (so a generated unit or pod
 * never carries a flag the manager would reject) plus how the binary is delivered.
 */
import type { Config } from "../config/config.ts";
import { FLAGS, flagSpec } from "../config/flags.ts";
import { parseArgv } from "../config/argv.ts";
import type { ProviderRules } from "../cloud/registry.ts";
import type { Manifest } from "../kube/objects.ts";

export interface PackageOptions {
  readonly config: Config;
  /** The manager's flags as written into the file, `--name=value` each, in the order given. */
  readonly args: readonly string[];
  /** Path of the executable: on the host (systemd, host-binary pods) or inside `image`. */
  readonly binary: string;
  /** An image holding the executable at `binary`; empty: mount the host's `binary` into `baseImage`. */
  readonly image: string;
  /** A glibc image the host's binary runs in when no `image` is given. */
  readonly baseImage: string;
  /** Where the systemd unit reads its flags from. */
  readonly envFile: string;
  /** The provider's own extra permissions (all providers' for `rbac` without --cloud-provider). */
  readonly providerRules: readonly ProviderRules[];
  /** The provider's CustomResourceDefinitions (all providers' for `crds` without --cloud-provider). */
  readonly customResources: readonly Manifest[];
  /** The provider never offers routes (its factory says so): routes on need no `--cluster-cidr` then. */
  readonly withoutRoutes?: boolean;
  /**
   * Files the manager reads that no flag names, found on this host by the command: the certificates a
   * kubeconfig names by path. A static pod mounts them too.
   */
  readonly indirectFiles?: readonly HostFile[];
}

export const NAME = "cloud-controller-manager";

export const DEFAULTS = {
  binary: `/usr/local/bin/${NAME}`,
  // Fully qualified: CRI-O with short-name-mode=enforcing refuses a short name.
  baseImage: "docker.io/library/debian:bookworm-slim",
  envFile: `/etc/default/${NAME}`,
  unitFile: `/etc/systemd/system/${NAME}.service`,
  sysusersFile: `/etc/sysusers.d/${NAME}.conf`,
  kubeconfig: `/etc/kubernetes/${NAME}.conf`,
  cloudConfig: "/etc/kubernetes/cloud.conf",
} as const;

/**
 * The flags as `--name=value`, canonical names, first-seen order, list flags joined. A `repeated` flag
 * (`--tls-sni-cert-key`) stays one argument per occurrence: its values hold commas, so they cannot be
 * joined, and the parser's newline-joined text is no argument a unit or pod could carry.
 */
export function normalizeArgs(argv: readonly string[]): string[] {
  return [...parseArgv(argv, FLAGS).values].flatMap(([name, value]) => {
    const values = flagSpec(name)?.type === "repeated" ? value.split("\n") : [value];
    return values.map((v) => `--${name}=${v}`);
  });
}

/** A file the manager reads from the host, with the flag that names it. */
export interface HostFile {
  readonly flag: string;
  readonly path: string;
}

/**
 * Every file the configured manager's flags name: kubeconfigs, cloud-config, serving certificates (SNI
 * pairs too) and the client CA bundles.
 */
export function hostFiles(config: Config): HostFile[] {
  const { serving } = config;
  const files: [string, string][] = [
    ["kubeconfig", config.kubeconfig],
    ["cloud-config", config.cloudConfig],
    ["authentication-kubeconfig", serving.authenticationKubeconfig],
    ["authorization-kubeconfig", serving.authorizationKubeconfig],
    ["tls-cert-file", serving.tlsCertFile],
    ["tls-private-key-file", serving.tlsPrivateKeyFile],
    ...serving.sniCertKeys.flatMap((p): [string, string][] => [
      ["tls-sni-cert-key", p.certFile],
      ["tls-sni-cert-key", p.keyFile],
    ]),
    ["client-ca-file", serving.clientAuth.clientCAFile],
    ["requestheader-client-ca-file", serving.clientAuth.requestHeaderClientCAFile],
  ];
  return files.filter(([, path]) => path !== "").map(([flag, path]) => ({ flag, path }));
}

/** Where health probes reach the secure port: loopback unless the manager binds one address. */
export function probeHost(config: Config): string {
  const bind = config.serving.bindAddress;
  if (bind === "0.0.0.0" || bind === "::") return "127.0.0.1";
  return bind;
}

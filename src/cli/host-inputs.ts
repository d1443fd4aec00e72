/**
 * The files a host install reads (kubeconfigs, cloud-config, serving certificate, and the certificates a
 * kubeconfig names by path), and which of them cannot be read now. IO on the local filesystem only;
 * what to make of a missing file is `inputProblems`' decision.
 */
import { accessSync, constants } from "node:fs";
import { loadKubeConfig } from "../kube/kubeconfig.ts";
import { hostFiles, type HostFile, type PackageOptions } from "../manifests/options.ts";
import type { UnreadableInput } from "../manifests/install-plan.ts";

/** Certificate and CA files a kubeconfig names by path: the service must read them too. */
function kubeconfigFiles(path: string): string[] {
  try {
    const kc = loadKubeConfig({ kubeconfig: path, master: "" });
    return [kc.getCurrentCluster()?.caFile, kc.getCurrentUser()?.certFile, kc.getCurrentUser()?.keyFile].filter(
      (f): f is string => !!f,
    );
  } catch {
    return [];
  }
}

/** The files the kubeconfigs of `o` name by path, with the flag of the kubeconfig. */
export function kubeconfigReads(o: PackageOptions): HostFile[] {
  return hostFiles(o.config)
    .filter((f) => f.flag.endsWith("kubeconfig"))
    .flatMap((f) => kubeconfigFiles(f.path).map((path) => ({ flag: f.flag, path })));
}

/** Every file the service reads, with the flag that brought it in. */
export function serviceReads(o: PackageOptions): HostFile[] {
  return [...hostFiles(o.config), ...kubeconfigReads(o)];
}

/** The files of `files` this process cannot read, with the reason. */
export function unreadable(files: readonly HostFile[]): UnreadableInput[] {
  return files.flatMap((f) => {
    try {
      accessSync(f.path, constants.R_OK);
      return [];
    } catch (error) {
      return [{ ...f, reason: (error as Error).message }];
    }
  });
}

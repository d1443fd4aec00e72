/**
 * The provider's only IO. There is no cloud API on bare metal: the "cloud" is the cloud-config file (read
 * and followed here) and the announce annotations on Services (written here, through the manager's API
 * client).
 */
import { readFileSync, unwatchFile, watchFile } from "node:fs";
import { SERVICES, type KubeApi } from "../../src/kube/api.ts";
import type { Service } from "../../src/kube/objects.ts";

export function readCloudConfig(path: string): string {
  return readFileSync(path, "utf8");
}

/**
 * Calls `onText` with the file's content whenever its modification time changes (polling, so it also works
 * for files replaced by rename, as editors and config-management tools do). Returns the stop function.
 */
export function followCloudConfig(path: string, intervalMs: number, onText: (text: string) => void, onError: (error: Error) => void): () => void {
  const listener = (): void => {
    let text: string;
    try {
      text = readCloudConfig(path);
    } catch (error) {
      onError(error as Error);
      return;
    }
    onText(text);
  };
  watchFile(path, { interval: intervalMs, persistent: false }, listener);
  return () => unwatchFile(path, listener);
}

/**
 * Sets (string) or removes (null) annotations on a Service with a JSON merge patch. The UID rides along as
 * a precondition, so a Service deleted and re-created under the same name is never written to by mistake.
 */
export async function patchServiceAnnotations(kube: KubeApi, service: Service, annotations: Record<string, string | null>, signal?: AbortSignal): Promise<void> {
  const metadata = { annotations, ...(service.metadata.uid ? { uid: service.metadata.uid } : {}) };
  await kube.patch<Service>(SERVICES, service.metadata.name, { metadata }, { namespace: service.metadata.namespace, type: "merge", signal });
}

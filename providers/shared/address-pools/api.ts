/**
 * The provider's API writes. There is no cloud API on bare metal: the "cloud" is the cloud-config file
 * (followed by src/cloud/follow-file.ts) and the announce annotations on Services (written here, through
 * the manager's API client).
 */
import { SERVICES, type KubeApi } from "../../../src/kube/api.ts";
import type { Service } from "../../../src/kube/objects.ts";
import { KubeApiError } from "../../../src/kube/transport.ts";

/** The Service named in a write is not the one the write was meant for: it was deleted and re-created. */
export class ServiceReplacedError extends Error {
  override readonly name = "ServiceReplacedError";
}

/**
 * Sets (string) or removes (null) annotations on a Service with a JSON merge patch. The UID rides along:
 * the API server refuses to change a UID (422, "metadata.uid: field is immutable"), so a Service deleted
 * and re-created under the same name is never written to by mistake; that refusal becomes a
 * ServiceReplacedError.
 */
export async function patchServiceAnnotations(kube: KubeApi, service: Service, annotations: Record<string, string | null>, signal?: AbortSignal): Promise<void> {
  const metadata = { annotations, ...(service.metadata.uid ? { uid: service.metadata.uid } : {}) };
  try {
    await kube.patch<Service>(SERVICES, service.metadata.name, { metadata }, { namespace: service.metadata.namespace, type: "merge", signal });
  } catch (error) {
    if (error instanceof KubeApiError && error.status === 422 && error.message.includes("metadata.uid")) {
      throw new ServiceReplacedError(`Service ${service.metadata.namespace ?? ""}/${service.metadata.name} was re-created (UID ${service.metadata.uid ?? ""} is gone)`, { cause: error });
    }
    throw error;
  }
}

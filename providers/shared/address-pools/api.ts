/**
 * The address pools' writes to the API server, through the manager's client: the annotations announcers
 * read, the Service condition that flags an address kept outside the pools, and AddressPool status.
 */
import { SERVICES, type KubeApi } from "../../../src/kube/api.ts";
import type { Condition, Service } from "../../../src/kube/objects.ts";
import { KubeApiError } from "../../../src/kube/transport.ts";
import { ADDRESS_POOLS } from "./crd.ts";

/** The Service named in a write is not the one the write was meant for: it was deleted and re-created. */
export class ServiceReplacedError extends Error {
  override readonly name = "ServiceReplacedError";
}

const serviceName = (service: Service): string => `${service.metadata.namespace ?? ""}/${service.metadata.name}`;

/**
 * Sets (string) or removes (null) annotations on a Service with a JSON merge patch. The UID rides along:
 * the API server refuses to change a UID (422, "metadata.uid: field is immutable"), so a Service deleted
 * and re-created under the same name is never written to by mistake; that refusal becomes a
 * ServiceReplacedError.
 */
export async function patchServiceAnnotations(
  kube: KubeApi,
  service: Service,
  annotations: Record<string, string | null>,
  signal?: AbortSignal,
): Promise<void> {
  const metadata = { annotations, ...(service.metadata.uid ? { uid: service.metadata.uid } : {}) };
  const target = { namespace: service.metadata.namespace, type: "merge" as const, signal };
  try {
    await kube.patch<Service>(SERVICES, service.metadata.name, { metadata }, target);
  } catch (error) {
    if (error instanceof KubeApiError && error.status === 422 && error.message.includes("metadata.uid")) {
      const message = `Service ${serviceName(service)} was re-created (UID ${service.metadata.uid ?? ""} is gone)`;
      throw new ServiceReplacedError(message, { cause: error });
    }
    throw error;
  }
}

/**
 * Sets one condition in the Service's status. A strategic merge patch on `services/status` merges
 * conditions by type, so the service controller's own status writes and other conditions are untouched.
 */
export async function patchServiceCondition(
  kube: KubeApi,
  service: Service,
  condition: Condition,
  signal?: AbortSignal,
): Promise<void> {
  const patch = { status: { conditions: [condition] } };
  await kube.patch<Service>(SERVICES, service.metadata.name, patch, {
    namespace: service.metadata.namespace,
    subresource: "status",
    type: "strategic",
    signal,
  });
}

/** Replaces an AddressPool's status counts and conditions (merge patch on `addresspools/status`). */
export async function patchAddressPoolStatus(
  kube: KubeApi,
  name: string,
  status: object,
  signal?: AbortSignal,
): Promise<void> {
  await kube.patch(ADDRESS_POOLS, name, { status }, { subresource: "status", type: "merge", signal });
}

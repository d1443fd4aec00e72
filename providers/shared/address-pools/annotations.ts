/**
 * The Service annotation keys and condition type a pool-backed load balancer reads and writes, all under
 * one provider prefix (bare metal: `baremetal.cloudprovider.io`), so two providers never read each other's.
 */
export interface ServiceKeys {
  /** Requested addresses, one per family, comma-separated (read). */
  readonly requestedIPs: string;
  /** The one pool to allocate from (read). */
  readonly addressPool: string;
  /** Default sharing annotation, when the settings name none (read). */
  readonly sharingKey: string;
  /** `"true"`: the Service may be moved to a new address when its pool no longer offers it the old one (read). */
  readonly allowAddressMove: string;
  /** The pools the addresses came from, in address order (written with the announce annotations). */
  readonly allocatedFrom: string;
  /** Service status condition: False while an address is kept outside the pools that serve the Service. */
  readonly conditionType: string;
}

export function serviceKeys(prefix: string): ServiceKeys {
  return {
    requestedIPs: `${prefix}/loadBalancerIPs`,
    addressPool: `${prefix}/address-pool`,
    sharingKey: `${prefix}/sharing-key`,
    allowAddressMove: `${prefix}/allow-address-move`,
    allocatedFrom: `${prefix}/allocated-from`,
    conditionType: `${prefix}/AddressesInPools`,
  };
}

/** kube-vip (service mode) advertises the addresses it finds here. */
export const ANNOTATION_KUBE_VIP_IPS = "kube-vip.io/loadbalancerIPs";

/** Keys the provider reads from Services, so it may never write them. */
export function readKeys(keys: ServiceKeys): string[] {
  return [keys.requestedIPs, keys.addressPool, keys.allowAddressMove];
}

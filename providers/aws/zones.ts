/**
 * Availability-zone name → zone ID (`us-west-2a` → `usw2-az2`), for the `topology.k8s.aws/zone-id` label,
 * and → zone type (`availability-zone`, `local-zone`, `wavelength-zone`), for load-balancer subnets.
 * Zone IDs name the same physical zone in every account, unlike zone names. Cached until a zone that is
 * not in the cache is asked for (upstream's rule).
 */
import type { AwsApi } from "./api.ts";

/** The zone type of ordinary zones; ELBs and NLBs can use no other (upstream's `regularAvailabilityZoneType`). */
export const REGULAR_ZONE_TYPE = "availability-zone";

interface ZoneDetails {
  readonly id?: string;
  readonly type?: string;
}

export class ZoneCache {
  readonly #api: AwsApi;
  #zones = new Map<string, ZoneDetails>();
  #loading: Promise<void> | undefined;

  constructor(api: AwsApi) {
    this.#api = api;
  }

  async zoneID(zone: string, signal?: AbortSignal): Promise<string | undefined> {
    if (zone === "") return undefined;
    if (!this.#zones.has(zone)) await this.#reload(signal);
    return this.#zones.get(zone)?.id;
  }

  /** Zone name → zone type, for the named zones AWS knows (one that it does not is left out, as upstream). */
  async zoneTypes(zones: readonly string[], signal?: AbortSignal): Promise<Map<string, string>> {
    if (zones.some((z) => !this.#zones.has(z))) await this.#reload(signal);
    return new Map(zones.flatMap((z) => (this.#zones.get(z)?.type ? [[z, this.#zones.get(z)!.type!] as const] : [])));
  }

  #reload(signal?: AbortSignal): Promise<void> {
    this.#loading ??= this.#api.ec2
      .describeAvailabilityZones({ AllAvailabilityZones: false }, signal)
      .then((answer) => {
        this.#zones = new Map(
          (answer.AvailabilityZones ?? []).flatMap((z) =>
            z.ZoneName ? [[z.ZoneName, { id: z.ZoneId, type: z.ZoneType }] as const] : [],
          ),
        );
      })
      .finally(() => {
        this.#loading = undefined;
      });
    return this.#loading;
  }
}

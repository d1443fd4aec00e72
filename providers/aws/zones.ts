/**
 * Availability-zone name → zone ID (`us-west-2a` → `usw2-az2`), for the `topology.k8s.aws/zone-id` label.
 * Zone IDs name the same physical zone in every account, unlike zone names. Cached until a zone that is
 * not in the cache is asked for (upstream's rule).
 */
import type { AwsApi } from "./api.ts";

export class ZoneCache {
  readonly #api: AwsApi;
  #ids = new Map<string, string>();
  #loading: Promise<void> | undefined;

  constructor(api: AwsApi) {
    this.#api = api;
  }

  async zoneID(zone: string, signal?: AbortSignal): Promise<string | undefined> {
    if (zone === "") return undefined;
    if (!this.#ids.has(zone)) await this.#reload(signal);
    return this.#ids.get(zone);
  }

  #reload(signal?: AbortSignal): Promise<void> {
    this.#loading ??= this.#api.ec2
      .describeAvailabilityZones({ AllAvailabilityZones: false }, signal)
      .then((answer) => {
        this.#ids = new Map(
          (answer.AvailabilityZones ?? []).flatMap((z) =>
            z.ZoneName && z.ZoneId ? [[z.ZoneName, z.ZoneId] as const] : [],
          ),
        );
      })
      .finally(() => {
        this.#loading = undefined;
      });
    return this.#loading;
  }
}

/**
 * The fake cloud's preflight: one describe of zero instances, which goes through the same path as every
 * other call (HTTP to `endpoint` when set, injected faults included) and changes nothing.
 */
import type { FakeCloudApi } from "./api.ts";
import type { FakeConfig } from "./config.ts";

export async function fakePreflight(api: FakeCloudApi, config: FakeConfig, signal: AbortSignal): Promise<string[]> {
  const where = config.endpoint === "" ? "the in-process fake cloud" : `the fake cloud at ${config.endpoint}`;
  try {
    await api.call("InstanceMetadataBatch", { nodes: [] }, signal);
    return [];
  } catch (error) {
    return [`${where} did not answer a describe of zero instances: ${(error as Error).message}`];
  }
}

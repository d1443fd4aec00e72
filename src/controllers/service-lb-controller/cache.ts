/**
 * The service controller's memory per `namespace/name` key (upstream `serviceCache`): the last copy of
 * the Service it acted on, for deleting the LB of a Service that vanished without our finalizer; and
 * the node set its LB was last built with, for the node sync to compare against.
 */
import type { Node, Service } from "../../kube/objects.ts";
import { nodeSetIdentity } from "./predicates.ts";

interface Entry {
  service: Service;
  /** Set after a successful Ensure or Update; absent while the LB is not known to be in place. */
  nodes?: readonly Node[];
}

export class ServiceCache {
  readonly #entries = new Map<string, Entry>();
  /**
   * The identity of each recorded node list: one pass records the same list for every Service, so a
   * node sync over thousands of Services compares strings instead of building two sets per Service.
   */
  readonly #identities = new WeakMap<readonly Node[], string>();

  get(key: string): Service | undefined {
    return this.#entries.get(key)?.service;
  }

  /** Remembers `service`; the recorded node set stays only if it is the same object (same UID). */
  set(key: string, service: Service): void {
    const entry = this.#entries.get(key);
    const keep = entry && entry.service.metadata.uid === service.metadata.uid ? entry.nodes : undefined;
    this.#entries.set(key, keep ? { service, nodes: keep } : { service });
  }

  /** Remembers `service` only when nothing is remembered for `key` yet. */
  setIfAbsent(key: string, service: Service): void {
    if (!this.#entries.has(key)) this.#entries.set(key, { service });
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  syncedNodes(key: string): readonly Node[] | undefined {
    return this.#entries.get(key)?.nodes;
  }

  /** Whether the LB of `key` was last built with the same nodes (names and providerIDs) as `nodes`. */
  builtWith(key: string, nodes: readonly Node[]): boolean {
    const synced = this.#entries.get(key)?.nodes;
    if (synced === undefined) return false;
    return synced === nodes || this.#identity(synced) === this.#identity(nodes);
  }

  #identity(nodes: readonly Node[]): string {
    let identity = this.#identities.get(nodes);
    if (identity === undefined) this.#identities.set(nodes, (identity = nodeSetIdentity(nodes)));
    return identity;
  }

  recordNodes(key: string, nodes: readonly Node[]): void {
    const entry = this.#entries.get(key);
    if (entry) entry.nodes = nodes;
  }

  /** Keys whose load balancer was built with a known node set: the node sync's work list. */
  syncedKeys(): string[] {
    return [...this.#entries].filter(([, e]) => e.nodes !== undefined).map(([key]) => key);
  }
}

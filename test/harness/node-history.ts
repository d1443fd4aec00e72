/**
 * Every version of every Node the API server reports, from a watch started before the test's kubelets:
 * the first version of a node is what kubelet registered, and a flapping field shows up as a version
 * that differs. Also: which identities wrote a node, from the control plane's audit log.
 */
import { readFileSync } from "node:fs";
import { NODES, type KubeApi } from "../../src/kube/api.ts";
import type { Node } from "../../src/kube/objects.ts";

export interface NodeHistory {
  /** Every version seen of the node, oldest first. */
  versions(name: string): Node[];
  /** Versions seen since `since` (by the time the watch delivered them). */
  versionsSince(name: string, since: number): Node[];
  stop(): void;
}

interface Seen {
  readonly at: number;
  readonly node: Node;
}

export async function recordNodes(api: KubeApi): Promise<NodeHistory> {
  const seen = new Map<string, Seen[]>();
  const controller = new AbortController();
  let resourceVersion = (await api.list<Node>(NODES, { limit: 1 })).metadata.resourceVersion;
  const watchOnce = async (): Promise<void> => {
    for await (const event of api.watch<Node>(NODES, {
      resourceVersion,
      timeoutSeconds: 300,
      signal: controller.signal,
    })) {
      if (event.type === "BOOKMARK" || event.type === "ERROR") continue;
      resourceVersion = event.object.metadata.resourceVersion ?? resourceVersion;
      const name = event.object.metadata.name;
      seen.set(name, [...(seen.get(name) ?? []), { at: Date.now(), node: event.object }]);
    }
  };
  const follow = async (): Promise<void> => {
    while (!controller.signal.aborted) await watchOnce().catch(() => Bun.sleep(200));
  };
  void follow();
  return {
    versions: (name) => (seen.get(name) ?? []).map((s) => s.node),
    versionsSince: (name, since) => (seen.get(name) ?? []).filter((s) => s.at >= since).map((s) => s.node),
    stop: () => controller.abort(),
  };
}

interface AuditEvent {
  readonly stage: string;
  readonly verb: string;
  readonly user: { readonly username: string };
  readonly objectRef?: { readonly resource?: string; readonly subresource?: string; readonly name?: string };
  readonly requestReceivedTimestamp: string;
  readonly responseStatus?: { readonly code?: number };
}

/** Successful writes to the Node (and its status) since `since`, as `user verb resource[/subresource]`. */
export function nodeWrites(auditLog: string, name: string, since: number): string[] {
  return readFileSync(auditLog, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as AuditEvent)
    .filter((e) => e.stage === "ResponseComplete" && e.objectRef?.resource === "nodes" && e.objectRef.name === name)
    .filter((e) => Date.parse(e.requestReceivedTimestamp) >= since && (e.responseStatus?.code ?? 0) < 300)
    .map((e) => `${e.user.username} ${e.verb} nodes${e.objectRef?.subresource ? `/${e.objectRef.subresource}` : ""}`);
}

/**
 * Tests that expect `check` to find nothing wrong share the API server with every other test: this names
 * any node another test left behind that `check` would rightly report, instead of failing obscurely.
 */
import { expect } from "bun:test";
import { NODES } from "../../src/kube/api.ts";
import type { Node } from "../../src/kube/objects.ts";
import { clusterCidrFindings, registeredWithoutExternal } from "../../src/check/findings.ts";
import { loadConfig } from "../../src/config/load.ts";
import { controlPlane } from "./control-plane.ts";

export async function expectNoNodeProblems(clusterCidr: string): Promise<void> {
  const cp = await controlPlane();
  const nodes = (await cp.admin.list<Node>(NODES)).items;
  const loaded = loadConfig(["--cloud-provider=fake", `--cluster-cidr=${clusterCidr}`], ["fake"]);
  if (!loaded.ok) throw new Error(loaded.errors.join("; "));
  const outside = clusterCidrFindings(nodes, loaded.config, true).filter((f) => f.status === "fail");
  expect({ unregistered: nodes.filter(registeredWithoutExternal).map((n) => n.metadata.name), outside }).toEqual({
    unregistered: [],
    outside: [],
  });
}

import { describe, expect, test } from "bun:test";
import type { Service } from "../../../src/kube/objects.ts";
import { managedGroupName } from "./managed-group.ts";

const svc = (namespace: string, name: string, uid: string): Service => ({ metadata: { namespace, name, uid } });

describe("NLB managed security group name", () => {
  // Upstream's GetSecurityGroupNameForNLB, by hand: sha256 of cluster name, Service name, namespace and
  // UID written one after another, and 8 characters of the namespace and of the name without their
  // non-alphanumerics:
  //   printf '%s' kubernetesgwedged11e2d3c-4b5a-6978-8695-a4b3c2d1e0f9 | sha256sum   → 3c66b4817e…
  //   printf '%s' prodweb-app-v2my-nsu-1 | sha256sum                                 → b96f3eb596…
  test.each([
    ["kubernetes", svc("edge", "gw", "d11e2d3c-4b5a-6978-8695-a4b3c2d1e0f9"), "k8s-edge-gw-3c66b4817e"],
    ["prod", svc("my-ns", "web-app-v2", "u-1"), "k8s-myns-webappv2-b96f3eb596"],
  ])("cluster %s: %o", (clusterName, service, want) => {
    expect(managedGroupName(clusterName, service)).toBe(want);
  });
});

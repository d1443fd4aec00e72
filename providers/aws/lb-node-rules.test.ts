import { describe, expect, test } from "bun:test";
import type { SecurityGroup } from "@aws-sdk/client-ec2";
import type { AwsApi } from "./api.ts";
import type { Ec2Instance } from "./ec2-instance.ts";
import { backendGroups } from "./lb-node-rules.ts";

const cluster = { clusterID: "c1", legacy: false };
const group = (id: string, tagged: boolean): SecurityGroup => ({
  GroupId: id,
  GroupName: `name-${id}`,
  Tags: tagged ? [{ Key: "kubernetes.io/cluster/c1", Value: "owned" }] : [],
});
const groups = [group("sg-t1", true), group("sg-t2", true), group("sg-u1", false), group("sg-u2", false)];
const api = {
  ec2: { describeSecurityGroups: () => Promise.resolve({ SecurityGroups: groups }) },
} as unknown as AwsApi;
const instance = (id: string, ...securityGroupIds: string[]): Ec2Instance =>
  ({ id, securityGroupIds }) as unknown as Ec2Instance;
const warnings: string[] = [];
const deps = { api, cluster, warn: (m: string) => warnings.push(m) };

describe("backend security groups (upstream's findSecurityGroupForInstance)", () => {
  test("the only tagged group, else the only group", async () => {
    const chosen = await backendGroups(deps, [instance("i-1", "sg-t1", "sg-u1"), instance("i-2", "sg-u2")]);
    expect([...chosen.keys()].sort()).toEqual(["sg-t1", "sg-u2"]);
  });

  test("several tagged groups fail the sync, naming the instance and the groups", async () => {
    await expect(backendGroups(deps, [instance("i-1", "sg-t1", "sg-t2", "sg-u1")])).rejects.toThrow(
      "Multiple tagged security groups found for instance i-1; ensure only the k8s security group is tagged; the tagged groups were sg-t1(name-sg-t1) sg-t2(name-sg-t2)",
    );
  });

  test("several untagged groups fail the sync, naming the instance and the groups", async () => {
    await expect(backendGroups(deps, [instance("i-1", "sg-u1", "sg-u2")])).rejects.toThrow(
      "Multiple untagged security groups found for instance i-1; ensure the k8s security group is tagged; the groups were sg-u1(name-sg-u1) sg-u2(name-sg-u2)",
    );
  });
});

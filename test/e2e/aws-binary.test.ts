/**
 * The AWS SDK inside the compiled executable: run from an empty directory with only PATH and the usual
 * AWS_* variables (endpoint, static credentials, region), the binary reaches moto's EC2, ELB and ELBv2
 * through the SDK's default chain and logs what it found. A bad cloud-config exits 2 with one line per problem.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { awsTestCloud, type AwsTestCloud } from "../harness/aws-cloud.ts";
import { lonelyBinary } from "../harness/binary.ts";
import { startCcm, type CcmProcess, managerFlags } from "../harness/ccm.ts";
import { controlPlane } from "../harness/control-plane.ts";

// The first test of a run may install moto into the cache and start it; hooks default to 5 s.
setDefaultTimeout(180_000);

/**
 * The compiled binary from an empty directory, with only PATH and the cloud's AWS_* variables, against a
 * fresh control plane and `cloud` (its cloud-config written beside the binary).
 */
async function startAwsBinary(cloud: AwsTestCloud, extra: readonly string[] = []): Promise<CcmProcess> {
  const cp = await controlPlane();
  const { dir, binary } = await lonelyBinary("ccm-aws-binary-");
  const configFile = join(dir, "cloud.ini");
  writeFileSync(configFile, cloud.configText());
  return startCcm({
    binary,
    cwd: dir,
    env: { PATH: "/usr/bin:/bin", HOME: dir, ...cloud.env() },
    args: [...managerFlags(cp.kubeconfigs.ccm, "aws", configFile), "--cluster-cidr=10.244.0.0/16", ...extra],
  });
}

describe("compiled binary with --cloud-provider=aws", () => {
  test("reaches EC2, ELB and ELBv2 through the SDK's default chain and AWS_ENDPOINT_URL", async () => {
    const cloud = await awsTestCloud("e2e-binary");
    await cloud.launch();
    await cloud.launch({ zone: "us-west-2b" });
    const ccm = await startAwsBinary(cloud);
    const line = await ccm.waitForLine(/aws: region|aws: cannot reach/, 60_000);
    expect(line).toContain(
      `aws: region us-west-2, cluster tag kubernetes.io/cluster/e2e-binary: 2 instance(s), route table ${cloud.routeTableId}; ELB reachable, ELBv2 reachable`,
    );
    expect(await ccm.stop("SIGTERM")).toBe(0);
  }, 300_000);

  test("its controller threads load the provider, compiled as an entry point of its own (--controller-threads=2)", async () => {
    const cloud = await awsTestCloud("e2e-threads");
    await cloud.launch();
    const ccm = await startAwsBinary(cloud, ["--controller-threads=2"]);
    for (const thread of [0, 1])
      await ccm.waitForLine(new RegExp(`thread-${thread}\\] started \\d controller`), 60_000);
    expect(await ccm.stop("SIGTERM")).toBe(0);
  }, 300_000);

  test("a bad cloud-config exits 2 naming each problem", async () => {
    const { dir, binary } = await lonelyBinary("ccm-aws-binary-");
    const configFile = join(dir, "cloud.ini");
    writeFileSync(configFile, "[Global]\nVPC = my-vpc\nZone = mars-1\n");
    const proc = Bun.spawn([binary, "--cloud-provider=aws", `--cloud-config=${configFile}`], {
      cwd: dir,
      env: { PATH: "/usr/bin:/bin" },
      stderr: "pipe",
    });
    const err = await new Response(proc.stderr).text();
    expect(await proc.exited).toBe(2);
    expect(err).toContain(
      `invalid --cloud-config ${JSON.stringify(configFile)}: [Global] VPC: "my-vpc" is not a VPC ID`,
    );
    expect(err).toContain(`[Global] Zone: "mars-1" is not an availability zone`);
    expect(err).toContain("[Global] KubernetesClusterID: required");
  }, 300_000);
});

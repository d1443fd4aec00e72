import { describe, expect, test } from "bun:test";
import { accountOf, roleCredentials } from "./credentials.ts";

/** A one-route STS: answers AssumeRole with fixed credentials and keeps each request's headers and form. */
function fakeSts(): { url: string; seen: { headers: Headers; form: URLSearchParams }[]; stop: () => void } {
  const seen: { headers: Headers; form: URLSearchParams }[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      seen.push({ headers: req.headers, form: new URLSearchParams(await req.text()) });
      const expiry = new Date(Date.now() + 3_600_000).toISOString();
      return new Response(
        `<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult><Credentials>` +
          `<AccessKeyId>ASIAROLE</AccessKeyId><SecretAccessKey>secret</SecretAccessKey><SessionToken>token</SessionToken>` +
          `<Expiration>${expiry}</Expiration></Credentials><AssumedRoleUser><Arn>arn:aws:sts::111122223333:assumed-role/ccm/s</Arn>` +
          `<AssumedRoleId>AROA:s</AssumedRoleId></AssumedRoleUser></AssumeRoleResult></AssumeRoleResponse>`,
        { headers: { "Content-Type": "text/xml" } },
      );
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, seen, stop: () => void server.stop(true) };
}

const caller = { accessKeyId: "caller", secretAccessKey: "caller" };
const ROLE = "arn:aws:iam::111122223333:role/ccm";

describe("AssumeRole credentials", () => {
  test("no role: the caller's credentials unchanged", () => {
    expect(
      roleCredentials(undefined, caller, {
        region: "us-east-1",
        endpoint: undefined,
        signingRegion: undefined,
        requestTimeoutMs: 1000,
      }),
    ).toBe(caller);
  });

  test("RoleARN through the sts endpoint, with SourceARN as upstream's source headers", async () => {
    const sts = fakeSts();
    try {
      const role = { roleARN: ROLE, sourceARN: "arn:aws:eks:us-east-1:444455556666:cluster/prod" };
      const provider = roleCredentials(role, caller, {
        region: "us-east-1",
        endpoint: sts.url,
        signingRegion: "us-east-1",
        requestTimeoutMs: 5000,
      });
      if (typeof provider !== "function") throw new Error("expected a credential provider");
      expect(await provider()).toMatchObject({ accessKeyId: "ASIAROLE", sessionToken: "token" });
      const [request] = sts.seen;
      expect(request?.form.get("Action")).toBe("AssumeRole");
      expect(request?.form.get("RoleArn")).toBe(ROLE);
      expect(request?.headers.get("x-amz-source-arn")).toBe(role.sourceARN);
      expect(request?.headers.get("x-amz-source-account")).toBe("444455556666");
      expect(request?.headers.get("authorization")).toContain("Credential=caller/");
      expect(request?.headers.get("authorization")).toContain("x-amz-source-arn");
    } finally {
      sts.stop();
    }
  });

  test("without SourceARN no source headers are sent", async () => {
    const sts = fakeSts();
    try {
      const provider = roleCredentials({ roleARN: ROLE, sourceARN: "" }, caller, {
        region: "us-east-1",
        endpoint: sts.url,
        signingRegion: undefined,
        requestTimeoutMs: 5000,
      });
      if (typeof provider !== "function") throw new Error("expected a credential provider");
      await provider();
      expect(sts.seen[0]?.headers.get("x-amz-source-arn")).toBeNull();
    } finally {
      sts.stop();
    }
  });

  test("the account of an ARN", () => {
    expect(accountOf("arn:aws:eks:us-east-1:444455556666:cluster/prod")).toBe("444455556666");
    expect(accountOf("nonsense")).toBe("");
  });
});

import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { credentialSource, loginFrom } from "./credentials.ts";

const VC = "vc.example.com";
const outcome = (data: Record<string, string>, server: string): string => {
  try {
    const { username, password } = loginFrom(data, server, "Secret kube-system/vsphere");
    return `${JSON.stringify(username)} ${JSON.stringify(password)}`;
  } catch (error) {
    return (error as Error).message;
  }
};

describe("credentials from a Secret's data", () => {
  test.each([
    [
      "<server>.username and <server>.password, one trailing newline dropped",
      VC,
      { "vc.example.com.username": "admin\n", "vc.example.com.password": "s3cret \n\n" },
      '"admin" "s3cret \\n"',
    ],
    [
      "server_<n> naming the server, with username_<n> and password_<n>",
      "fd01::1",
      { server_a: "fd01::1\n", username_a: "admin", password_a: "pw\n", server_b: "other" },
      '"admin" "pw"',
    ],
    [
      "a missing key is an error naming it",
      VC,
      { "vc.example.com.username": "admin" },
      "Secret kube-system/vsphere has no vc.example.com.password",
    ],
    ["an empty value counts as missing", VC, { server_1: "vc.example.com", username_1: "\n" }, "has no username_1"],
  ])("%s", (_title, server, data, expected) => {
    expect(outcome(data, server)).toContain(expected);
  });
});

describe("credentials from a mounted Secret's directory", () => {
  test("the kubelet's layout: keys linked into ..data, a link to the ..<timestamp> folder", async () => {
    const dir = mkdtempSync(join(tmpdir(), "vsphere-secret-"));
    try {
      const stamp = join(dir, "..2024_01_01_00_00_00.123");
      mkdirSync(stamp);
      const keys = { "vc.example.com.username": "admin\n", "vc.example.com.password": "pw\n", "other.pem": "x" };
      for (const [key, value] of Object.entries(keys)) writeFileSync(join(stamp, key), value);
      symlinkSync("..2024_01_01_00_00_00.123", join(dir, "..data"));
      for (const key of Object.keys(keys)) symlinkSync(`..data/${key}`, join(dir, key));
      mkdirSync(join(dir, "server_1"));
      const login = credentialSource({ kind: "directory", path: dir }, VC, () => undefined);
      expect(await login()).toEqual({ username: "admin", password: "pw" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

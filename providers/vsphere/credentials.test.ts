import { describe, expect, test } from "bun:test";
import { loginFrom } from "./credentials.ts";

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

import { describe, expect, test } from "bun:test";
import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveConnection } from "./kubeconfig.ts";

/** A kubeconfig of one cluster and one user, written as YAML into a folder of its own. */
function kubeconfig(user: Record<string, string>, server = "https://127.0.0.1:6443"): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), "ccm-kubeconfig-"));
  const lines = [
    "apiVersion: v1",
    "kind: Config",
    `clusters: [{ name: c, cluster: { server: '${server}' } }]`,
    `users: [{ name: u, user: ${JSON.stringify(user)} }]`,
    "contexts: [{ name: x, context: { cluster: c, user: u } }]",
    "current-context: x",
  ];
  const file = join(dir, "kubeconfig");
  writeFileSync(file, `${lines.join("\n")}\n`);
  return { dir, file };
}

describe("kubeconfig", () => {
  test("a user's tokenFile (client-go's key), relative to the kubeconfig's folder, is the bearer token", async () => {
    const { dir, file } = kubeconfig({ tokenFile: "secrets/token" });
    mkdirSync(join(dir, "secrets"));
    writeFileSync(join(dir, "secrets", "token"), "file-token\n");
    const connection = await resolveConnection({ kubeconfig: file, master: "" });
    expect(await connection.authorization()).toBe("Bearer file-token");
  });

  test("tokenFile comes before token, as client-go's file token source; an unreadable one fails at start", async () => {
    const { dir, file } = kubeconfig({ token: "inline", tokenFile: "token" });
    writeFileSync(join(dir, "token"), "from-file");
    expect(await (await resolveConnection({ kubeconfig: file, master: "" })).authorization()).toBe("Bearer from-file");
    const missing = kubeconfig({ tokenFile: "absent" });
    await expect(resolveConnection({ kubeconfig: missing.file, master: "" })).rejects.toThrow(/ENOENT/);
  });

  test("an http:// server (kubeconfig or --master) is spoken to in plain HTTP, as client-go does", async () => {
    const { file } = kubeconfig({ token: "t" }, "http://127.0.0.1:8001");
    const viaFile = await resolveConnection({ kubeconfig: file, master: "" });
    expect(viaFile.server).toBe("http://127.0.0.1:8001");
    expect(await viaFile.authorization()).toBe("Bearer t");
    const viaMaster = await resolveConnection({ kubeconfig: "", master: "http://127.0.0.1:8001/" });
    expect(viaMaster.server).toBe("http://127.0.0.1:8001");
    expect(await viaMaster.authorization()).toBeUndefined();
    // An https --master over that kubeconfig still verifies the server's certificate.
    const overridden = await resolveConnection({ kubeconfig: file, master: "https://10.0.0.1:6443" });
    expect(overridden.server).toBe("https://10.0.0.1:6443");
    expect(overridden.tls.rejectUnauthorized).toBe(true);
  });

  test("a plain token is sent as before", async () => {
    const { file } = kubeconfig({ token: "inline" });
    expect(await (await resolveConnection({ kubeconfig: file, master: "" })).authorization()).toBe("Bearer inline");
  });
});

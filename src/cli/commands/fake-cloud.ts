/**
 * `cloud-controller-manager fake-cloud`: serves the fake cloud on loopback so several managers (HA pairs,
 * restarts, benchmarks) share one cloud whose state outlives them. Point managers at it with
 * `endpoint: http://<listen>` in their fake cloud-config.
 */
import { readFileSync } from "node:fs";
import { defineCommand } from "citty";
import { FakeCloud, parseFakeConfig } from "../../../providers/fake/index.ts";
import { serveFakeCloud } from "../../../providers/fake/server.ts";
import type { CommandData } from "../cli.ts";

export const fakeCloudCommand = defineCommand({
  meta: {
    name: "fake-cloud",
    description: "Serve the in-memory fake cloud over HTTP on loopback (admin API under /admin/).",
  },
  args: {
    config: { type: "string", description: "Fake cloud-config (YAML or JSON) declaring instances, pools and faults." },
    listen: { type: "string", description: "host:port to listen on", default: "127.0.0.1:0" },
  },
  async run({ args, data }) {
    const { io } = data as CommandData;
    const text = args.config ? readFileSync(args.config, "utf8") : "";
    const parsed = parseFakeConfig(text);
    if (!parsed.ok) {
      for (const line of parsed.errors) io.stderr(`error: invalid --config ${JSON.stringify(args.config)}: ${line}\n`);
      (data as CommandData).exitCode = 2;
      return;
    }
    const [hostname, port] = splitListen(args.listen);
    const server = serveFakeCloud(new FakeCloud(parsed.config), { hostname, port });
    io.stdout(`fake cloud listening on http://${hostname}:${server.port}\n`);
    await new Promise<void>((resolve) => io.signal.addEventListener("abort", () => resolve(), { once: true }));
    await server.stop(true);
  },
});

function splitListen(listen: string): [string, number] {
  const colon = listen.lastIndexOf(":");
  return [listen.slice(0, colon) || "127.0.0.1", Number(listen.slice(colon + 1)) || 0];
}

import { describe, expect, test } from "bun:test";
import { consolaLevel, createLogger } from "./logger.ts";

describe("logger", () => {
  test("-v maps onto consola levels", () => {
    expect([0, 2, 3, 4, 5, 6, 10].map(consolaLevel)).toEqual([3, 3, 3, 4, 4, 5, 5]);
  });

  test("text: klog-style header with the component tag and key=value fields", () => {
    const lines: string[] = [];
    createLogger({ verbosity: 0, format: "text", write: (l) => lines.push(l) })
      .withTag("cloud-node-controller")
      .warn("error syncing", { node: "n1" });
    expect(lines).toHaveLength(1);
    const pid = String(process.pid).padStart(7);
    expect(lines[0]).toMatch(
      new RegExp(`^W\\d{4} \\d{2}:\\d{2}:\\d{2}\\.\\d{6} ${pid} cloud-node-controller\\] error syncing node="n1"\n$`),
    );
    // A glog parser's pattern (fluent-bit's `glog`) reads every part.
    const glog = /^(?<level>\w)(?<time>\d{4} [^\s]*)\s+(?<pid>\d+)\s+(?<source>[^ \]]+)\] (?<message>.*)$/;
    expect(glog.exec(lines[0]!.trimEnd())?.groups).toMatchObject({
      pid: String(process.pid),
      source: "cloud-node-controller",
    });
  });

  test("json: one object a line, fields kept, debug hidden below -v=4", () => {
    const lines: string[] = [];
    const log = createLogger({ verbosity: 0, format: "json", write: (l) => lines.push(l) }).withTag(
      "service-lb-controller",
    );
    log.info("Ensured load balancer", { service: "ns/web" });
    log.debug("not shown");
    expect(lines).toHaveLength(1);
    const parsed = JSON.parse(lines[0] ?? "") as Record<string, unknown>;
    expect(parsed).toMatchObject({
      level: "info",
      logger: "service-lb-controller",
      msg: "Ensured load balancer",
      service: "ns/web",
    });
    expect(parsed.v).toBe(0);
    expect(Math.abs((parsed.ts as number) - Date.now())).toBeLessThan(60_000);
    expect(lines[0]?.endsWith("}\n")).toBe(true);
  });

  test("a line logged again and again is written every time, at once (klog has no throttle)", () => {
    const lines: string[] = [];
    const log = createLogger({ verbosity: 0, format: "text", write: (l) => lines.push(l) });
    for (let i = 0; i < 12; i++) log.warn("lost the connection to the API server");
    expect(lines).toHaveLength(12);
    expect(lines.every((line) => line.endsWith("] lost the connection to the API server\n"))).toBe(true);
  });

  test("errors render as their message", () => {
    const lines: string[] = [];
    createLogger({ verbosity: 0, format: "json", write: (l) => lines.push(l) }).error("sync failed", {
      err: new Error("boom"),
    });
    const parsed = JSON.parse(lines[0] ?? "") as Record<string, unknown>;
    expect(parsed).toMatchObject({ msg: "sync failed", err: "boom" });
    expect(parsed).not.toHaveProperty("v");
  });
});

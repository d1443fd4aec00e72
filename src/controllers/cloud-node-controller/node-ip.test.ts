import { describe, expect, test } from "bun:test";
import type { NodeAddress } from "../../kube/objects.ts";
import { formatIP } from "../../net/ip.ts";
import { addressesForNodeIPs, parseNodeIPAnnotation } from "./node-ip.ts";

describe("parseNodeIPAnnotation", () => {
  const table: { text: string; want: string[] | RegExp }[] = [
    { text: "10.0.0.1", want: ["10.0.0.1"] },
    { text: "fd00::1", want: ["fd00::1"] },
    { text: "10.0.0.1,fd00::1", want: ["10.0.0.1", "fd00::1"] },
    { text: "fd00::1,10.0.0.1", want: ["fd00::1", "10.0.0.1"] },
    { text: "0.0.0.0", want: ["0.0.0.0"] },
    { text: "", want: /could not parse ""/ },
    { text: "10.0.0.1,", want: /could not parse ""/ },
    { text: "10.0.0.1, fd00::1", want: /could not parse " fd00::1"/ },
    { text: "node-a", want: /could not parse "node-a"/ },
    { text: "10.0.0.1,10.0.0.2", want: /single IP or a dual-stack pair/ },
    { text: "fd00::1,fd00::2", want: /single IP or a dual-stack pair/ },
    { text: "10.0.0.1,fd00::1,10.0.0.2", want: /single IP or a dual-stack pair/ },
    { text: "0.0.0.0,fd00::1", want: /cannot include '0.0.0.0' or '::'/ },
    { text: "10.0.0.1,::", want: /cannot include '0.0.0.0' or '::'/ },
  ];
  for (const { text, want } of table) {
    test(JSON.stringify(text), () => {
      const got = parseNodeIPAnnotation(text);
      if (Array.isArray(want)) expect(got.ok ? got.value.map(formatIP) : got.error).toEqual(want);
      else expect(got.ok ? "parsed" : got.error).toMatch(want);
    });
  }
});

describe("addressesForNodeIPs", () => {
  const ip = (type: NodeAddress["type"], address: string): NodeAddress => ({ type, address });
  const cloud = [
    ip("InternalIP", "10.0.0.9"),
    ip("InternalIP", "10.0.0.1"),
    ip("ExternalIP", "203.0.113.5"),
    ip("InternalIP", "fd00::1"),
    ip("Hostname", "node-a"),
  ];
  const table: { name: string; nodeIP: string; cloud: NodeAddress[]; want: NodeAddress[] | RegExp }[] = [
    {
      name: "the node IP leads; other addresses of its type are dropped",
      nodeIP: "10.0.0.1",
      cloud,
      want: [ip("InternalIP", "10.0.0.1"), ip("ExternalIP", "203.0.113.5"), ip("Hostname", "node-a")],
    },
    {
      name: "dual-stack: both node IPs lead, in annotation order",
      nodeIP: "fd00::1,10.0.0.1",
      cloud,
      want: [
        ip("InternalIP", "fd00::1"),
        ip("InternalIP", "10.0.0.1"),
        ip("ExternalIP", "203.0.113.5"),
        ip("Hostname", "node-a"),
      ],
    },
    {
      name: "a node IP that is an ExternalIP takes that type instead",
      nodeIP: "203.0.113.5",
      cloud,
      want: [
        ip("ExternalIP", "203.0.113.5"),
        ip("InternalIP", "10.0.0.9"),
        ip("InternalIP", "10.0.0.1"),
        ip("InternalIP", "fd00::1"),
        ip("Hostname", "node-a"),
      ],
    },
    {
      name: "IPs compare as IPs, not as text",
      nodeIP: "fd00:0:0::1",
      cloud: [ip("InternalIP", "FD00::0001")],
      want: [ip("InternalIP", "FD00::0001")],
    },
    {
      name: "a node IP the cloud does not report is an error",
      nodeIP: "10.0.0.2",
      cloud,
      want: /matches ip: 10\.0\.0\.2$/,
    },
    { name: "no cloud addresses at all is an error", nodeIP: "10.0.0.1", cloud: [], want: /matches ip: 10\.0\.0\.1$/ },
    {
      name: "dual-stack with one family missing is an error",
      nodeIP: "10.0.0.1,fd00::2",
      cloud,
      want: /matches ip: fd00::2$/,
    },
  ];
  for (const row of table) {
    test(row.name, () => {
      const parsed = parseNodeIPAnnotation(row.nodeIP);
      if (!parsed.ok) throw new Error(parsed.error);
      const got = addressesForNodeIPs(parsed.value, row.cloud);
      if (Array.isArray(row.want)) expect(got).toEqual({ ok: true, value: row.want });
      else expect(got.ok ? "ok" : got.error).toMatch(row.want);
    });
  }
});

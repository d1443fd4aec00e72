import { describe, expect, test } from "bun:test";
import { parseVSphereConfig, type VSphereConfig } from "./config.ts";

const ok = (text: string): VSphereConfig => {
  const parsed = parseVSphereConfig(text);
  if (!parsed.ok) throw new Error(parsed.errors.join("\n"));
  return parsed.config;
};
const errors = (text: string | undefined): string[] => {
  const parsed = parseVSphereConfig(text);
  return parsed.ok ? [] : parsed.errors;
};

const YAML = `
global:
  port: 8443
  insecureFlag: true
  secretName: vsphere-creds
  secretNamespace: kube-system
vcenter:
  prod:
    server: vc.example.com
    datacenters: [dc1, dc2]
labels:
  zone: k8s-zone
  region: k8s-region
nodes:
  internalNetworkSubnetCidr: 10.0.0.0/16
  externalVmNetworkName: "External Network"
`;

const INI = `
; upstream's INI form
[Global]
port = "8443"
insecure-flag = "1"
secret-name = "vsphere-creds"
secret-namespace = "kube-system"

[VirtualCenter "vc.example.com"]
datacenters = "dc1,dc2"

[Labels]
zone = k8s-zone
region = k8s-region

[Nodes]
internal-network-subnet-cidr = 10.0.0.0/16
external-vm-network-name = "External Network"
`;

describe("vsphere.conf", () => {
  test("the YAML form and the INI form read alike", () => {
    const fromYaml = ok(YAML);
    const fromIni = ok(INI);
    expect(fromIni).toEqual(fromYaml);
    expect(fromYaml.vcenter).toEqual({
      server: "vc.example.com",
      port: 8443,
      datacenters: ["dc1", "dc2"],
      insecure: true,
      caFile: "",
      thumbprint: "",
      credentials: { kind: "secret", namespace: "kube-system", name: "vsphere-creds" },
      ipFamilies: ["ipv4"],
    });
    expect(fromYaml.labels).toEqual({ zone: "k8s-zone", region: "k8s-region" });
    expect(fromYaml.nodes.externalNetworkName).toBe("External Network");
    expect(fromYaml.loadBalancers).toBeUndefined();
  });

  test("inline credentials in the vCenter entry win over global ones; the port defaults to 443", () => {
    const config = ok(
      `global: { user: a, password: b }\nvcenter:\n  vc:\n    server: 10.0.0.5\n    user: c\n    password: d\n`,
    );
    expect(config.vcenter.credentials).toEqual({ kind: "inline", username: "c", password: "d" });
    expect(config.vcenter.port).toBe(443);
    expect(config.vcenter.datacenters).toEqual([]);
  });

  test("the subnet keys take comma-separated CIDR lists, kept in the order given", () => {
    const nodes = ok(
      `vcenter: { a: { server: a, user: u, password: p } }\n` +
        `nodes: { internalNetworkSubnetCidr: "10.0.0.0/8, 192.168.0.0/16", externalNetworkSubnetCidr: 2001:db8::/32 }\n`,
    ).nodes;
    expect(nodes.internalSubnets.map((c) => c.prefix)).toEqual([8, 16]);
    expect(nodes.externalSubnets.map((c) => c.family)).toEqual([6]);
  });

  test("thumbprint: empty is absent (CAPV's unset variable); an entry's empty value falls back to global", () => {
    const pin = "0a:".repeat(19) + "0b";
    const read = (text: string): string => ok(text).vcenter.thumbprint;
    expect(
      read(`global: { thumbprint: '' }\nvcenter: { a: { server: a, user: u, password: p, thumbprint: '' } }\n`),
    ).toBe("");
    expect(
      read(`global: { thumbprint: '${pin}' }\nvcenter: { a: { server: a, user: u, password: p, thumbprint: '' } }\n`),
    ).toBe(pin.toUpperCase());
    expect(read(`[Global]\nthumbprint = ""\nuser = u\npassword = p\n[VirtualCenter "vc"]\nthumbprint = ${pin}\n`)).toBe(
      pin.toUpperCase(),
    );
  });

  test("upstream's keys and sections this provider does not use are accepted, each named in a warning", () => {
    const config = ok(
      "[Global]\nserver = vc\nuser = u\npassword = p\ncluster-id = c1\nservice-account = ccm\n" +
        '[VirtualCenter "vc"]\n[Labels]\nzone = z\ntopology-categories = "k8s-zone"\n' +
        '[Workspace]\nserver = vc\nfolder = "k8s"\n[Disk]\nscsicontrollertype = pvscsi\n',
    );
    expect(config.vcenter).toMatchObject({ server: "vc", credentials: { kind: "inline", username: "u" } });
    expect(config.ignored).toEqual([
      "[Workspace]: ignored (the in-tree provider's; name the vCenter under vcenter / [VirtualCenter])",
      "[Disk]: ignored (the in-tree provider's; disks belong to vSphere CSI)",
      "[Global] cluster-id: ignored (vSphere CSI's; the cloud-controller-manager does not read it)",
      "[Global] service-account: ignored (the manager's own service account is used)",
      "[Labels] topology-categories: ignored (vSphere CSI's; zone and region come from labels.zone and labels.region)",
    ]);
  });

  test("an empty [VirtualCenter] section is the vCenter, every value from [Global]", () => {
    const vc = ok(
      '[Global]\nport = 8443\nsecret-name = s\nsecret-namespace = ns\n[VirtualCenter "vc.example.com"]\n',
    ).vcenter;
    expect(vc).toMatchObject({ server: "vc.example.com", port: 8443, credentials: { kind: "secret", name: "s" } });
  });

  test("global.server names the vCenter: alone, or the same as an entry's; global caFile is honoured", () => {
    const alone = ok("global: { server: vc.example.com, user: u, password: p, caFile: /etc/vc-ca.pem }\n").vcenter;
    expect([alone.server, alone.caFile]).toEqual(["vc.example.com", "/etc/vc-ca.pem"]);
    const same = "global: { server: 10.0.0.5, user: u, password: p }\nvcenter: { prod: { server: 10.0.0.5 } }\n";
    expect(ok(same).vcenter.server).toBe("10.0.0.5");
    expect(errors(same.replace("server: 10.0.0.5 }", "server: 10.0.0.6 }")).join("\n")).toContain("2 vCenters given");
  });

  test("insecure-flag: [Global]'s 1 wins over the entry's 0, as upstream's sample vsphere.conf pairs them", () => {
    const text = (global: string, entry: string): string =>
      `[Global]\ninsecure-flag = "${global}"\nuser = u\npassword = p\n[VirtualCenter "vc"]\ninsecure-flag = "${entry}"\n`;
    expect(ok(text("1", "0")).vcenter.insecure).toBe(true);
    expect(ok(text("0", "1")).vcenter.insecure).toBe(true);
    expect(ok(text("0", "0")).vcenter.insecure).toBe(false);
  });

  test("a loadBalancers section (YAML form) turns load balancers on", () => {
    const config = ok(`${YAML}loadBalancers:\n  pools:\n    - { name: lb, addresses: [192.0.2.0/28] }\n`);
    expect(config.loadBalancers?.pools.map((p) => p.name)).toEqual(["lb"]);
  });

  test("loadBalancers.source: cluster reads AddressPool objects instead of listed pools", () => {
    expect(ok(`${YAML}loadBalancers: { source: cluster }\n`).loadBalancers).toMatchObject({
      source: "cluster",
      pools: [],
    });
  });

  test.each([
    [undefined, "vcenter: the cloud-config is required"],
    ["global: {}\n", "vcenter: name the vCenter"],
    [
      "vcenter:\n  a: { server: a, user: u, password: p }\n  b: { server: b, user: u, password: p }\n",
      "2 vCenters given",
    ],
    ["vcenter:\n  a: { server: a }\n", "vcenter.a: no credentials"],
    ["vcenter:\n  a: { server: a, secretName: s }\n", "vcenter.a.secretNamespace: is required with secretName"],
    ["vcenter:\n  a: { server: a, user: u, password: p, port: 99999 }\n", "vcenter.a.port"],
    [
      "vcenter:\n  a: { server: a, user: u, password: p, thumbprint: 'AA:BB' }\n",
      "vcenter.a.thumbprint: must be a SHA-1 or SHA-256 fingerprint",
    ],
    ["vcenter:\n  a: { server: a, user: u, password: p, ipFamily: [ipv5] }\n", "vcenter.a.ipFamily"],
    [
      "vcenter:\n  a: { server: a, user: u, password: p }\nnodes: { internalNetworkSubnetCidr: 10.0.0.0 }\n",
      "nodes.internalNetworkSubnetCidr",
    ],
    ["vcenter:\n  a: { server: a, user: u, password: p }\nlabels: { colour: blue }\n", "labels.colour: unknown field"],
    [
      '[Global]\nuser = u\npassword = p\n[VirtualCenter "vc"]\n[LoadBalancer]\nip-pool-name = x\n',
      "[LoadBalancer]: not supported: NSX-T",
    ],
    [
      '[VirtualCenter "vc"]\nuser = u\npassword = p\n[Route]\nrouter-path = /t1\n',
      "[Route]: not supported: NSX-T pod routes",
    ],
    [
      '[Global]\ninsecure-flag = maybe\n[VirtualCenter "vc"]\nuser = u\npassword = p\n',
      "[Global] insecure-flag: must be true or false",
    ],
    ["[VirtualCenter]\nuser = u\n", "needs the server as its subsection"],
    [
      '[VirtualCenter "vc"]\nuser = u\npassword = p\nthumbprint = AA\n',
      '[VirtualCenter "vc"] thumbprint: must be a SHA-1 or SHA-256 fingerprint',
    ],
    ['[VirtualCenter "vc"]\nuser = u\npassword = p\n[Labels]\ncolour = blue\n', "[Labels] colour: unknown field"],
    [
      '[Global]\ninsecure-flagg = 1\n[VirtualCenter "vc"]\nuser = u\npassword = p\n',
      "[Global] insecure-flagg: unknown field",
    ],
  ])("refused with the key named: %p", (text, expected) => {
    expect(errors(text).join("\n")).toContain(expected);
  });

  test("every problem is reported at once", () => {
    expect(
      errors("vcenter:\n  a: { server: a, port: 0 }\nlabels: { x: 1 }\nnodes: { y: 2 }\n").length,
    ).toBeGreaterThanOrEqual(4);
  });
});

import { describe, expect, test } from "bun:test";
import type { Node } from "../../src/kube/objects.ts";
import { instanceTypeOf } from "./instance-type.ts";
import { byteSwapUuid, nodeKeys, providerIdOf } from "./node-identity.ts";
import { readResponse, readRetrieveResult, SoapFault } from "./soap-xml.ts";

const node = (extra: { providerID?: string; systemUUID?: string } = {}): Node => ({
  apiVersion: "v1",
  kind: "Node",
  metadata: { name: "Worker-1" },
  spec: extra.providerID ? { providerID: extra.providerID } : {},
  status: {
    nodeInfo: { systemUUID: extra.systemUUID ?? "" },
    addresses: [{ type: "InternalIP", address: "10.0.0.1" }],
  },
});

describe("node identity", () => {
  test("the system UUID is byte-swapped (as Linux reports a VM's UUID) and then tried as given", () => {
    expect(byteSwapUuid("E6871642-7260-4E5B-AE3D-223A73D165AA")).toBe("421687e6-6072-5b4e-ae3d-223a73d165aa");
    expect(nodeKeys(node({ systemUUID: "E6871642-7260-4E5B-AE3D-223A73D165AA" })).systemUuids).toEqual([
      "421687e6-6072-5b4e-ae3d-223a73d165aa",
      "e6871642-7260-4e5b-ae3d-223a73d165aa",
    ]);
  });

  test("providerID: vsphere://<lower-case BIOS UUID>; another scheme is foreign", () => {
    expect(providerIdOf("ABC")).toBe("vsphere://abc");
    expect(nodeKeys(node({ providerID: "vsphere://ABCD" })).providerUuid).toBe("abcd");
    expect(nodeKeys(node({ providerID: "aws:///us-east-1a/i-1" })).foreignProviderId).toBe("aws:///us-east-1a/i-1");
    expect(nodeKeys(node()).name).toBe("worker-1");
    expect(nodeKeys(node()).addresses).toEqual(["10.0.0.1"]);
  });

  test.each([
    [2, 4096, "ubuntu64Guest", "vsphere-vm.cpu-2.mem-4gb.os-ubuntu"],
    [8, 16384, "vmwarePhoton64Guest", "vsphere-vm.cpu-8.mem-16gb.os-photon"],
    [1, 32, "otherGuest", "vsphere-vm.cpu-1.mem-0gb.os-other"],
    [4, 8192, "windows2019srv_64Guest", "vsphere-vm.cpu-4.mem-8gb.os-unknown"],
  ])("instance type of %p vCPU, %p MB, %p", (cpu, mem, guest, expected) => {
    expect(instanceTypeOf(cpu, mem, guest)).toBe(expected);
  });
});

const XSI = "http://www.w3.org/2001/XMLSchema-instance";

describe("SOAP answers", () => {
  test("a fault is thrown with its type, whatever prefix its xsi:type carries", () => {
    const xml = [
      `<?xml version="1.0"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/">`,
      "<soapenv:Body><soapenv:Fault><faultcode>ServerFaultCode</faultcode>",
      "<faultstring>The session is not authenticated.</faultstring><detail>",
      `<NotAuthenticatedFault xmlns:XMLSchema-instance="${XSI}" XMLSchema-instance:type="NotAuthenticated">`,
      `<object type="Folder">group-d1</object></NotAuthenticatedFault>`,
      "</detail></soapenv:Fault></soapenv:Body></soapenv:Envelope>",
    ].join("");
    expect(() => readResponse(xml, "RetrievePropertiesEx")).toThrow(SoapFault);
    try {
      readResponse(xml, "RetrievePropertiesEx");
    } catch (error) {
      expect((error as SoapFault).fault).toBe("NotAuthenticated");
    }
  });

  test("references keep their managed type apart from the value's xsi:type; a token means more pages", () => {
    const xml = [
      "<Envelope><Body><RetrievePropertiesExResponse><returnval><token>t1</token>",
      `<objects><obj type="VirtualMachine">vm-1</obj><propSet><name>runtime.host</name>`,
      `<val xmlns:x="${XSI}" x:type="ManagedObjectReference" type="HostSystem">host-9</val>`,
      "</propSet></objects></returnval></RetrievePropertiesExResponse></Body></Envelope>",
    ].join("");
    const result = readRetrieveResult(readResponse(xml, "RetrievePropertiesEx"));
    expect(result.token).toBe("t1");
    expect(result.objects[0]?.obj).toEqual({ type: "VirtualMachine", value: "vm-1" });
    expect(result.objects[0]?.props.get("runtime.host")).toMatchObject({ "@type": "HostSystem", "#text": "host-9" });
  });
});

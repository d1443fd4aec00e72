import { describe, expect, test } from "bun:test";
import { guestOsShortName, instanceTypeOf } from "./instance-type.ts";

describe("instance type", () => {
  test.each([
    ["vmwarePhoton64Guest", "photon"],
    ["rhel8_64Guest", "rhel8"],
    ["centos7_64Guest", "centos7"],
    ["windows9Server64Guest", "win10server"],
    ["genericLinuxGuest", "linux"],
    ["ubuntu64Guest", "ubuntu"],
    ["other4xLinux64Guest", "unknown"],
    ["UBUNTU64GUEST", "unknown"],
    ["toString", "unknown"],
    ["", "unknown"],
  ])("guest OS %p is %p, as upstream's exact table has it", (guestId, expected) => {
    expect(guestOsShortName(guestId)).toBe(expected);
  });

  test("vCPUs, whole GiB of memory and the guest OS", () => {
    expect(instanceTypeOf(2, 6144, "rhel8_64Guest")).toBe("vsphere-vm.cpu-2.mem-6gb.os-rhel8");
  });
});

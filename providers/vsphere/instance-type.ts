/**
 * The instance type the upstream CPI reports: `vsphere-vm.cpu-<vCPUs>.mem-<GiB>gb.os-<guest OS>`, the
 * OS being a short name for the VM's configured guest OS identifier ("unknown" when not recognised).
 */

/** Guest OS identifier prefixes (vim25 `VirtualMachineGuestOsIdentifier`) and their short names. */
const GUEST_OS: readonly (readonly [RegExp, string])[] = [
  [/^ubuntu/i, "ubuntu"],
  [/^photon/i, "photon"],
  [/^centos/i, "centos"],
  [/^rhel/i, "rhel"],
  [/^sles/i, "sles"],
  [/^debian/i, "debian"],
  [/^(windows|win)/i, "windows"],
  [/^coreos/i, "coreos"],
  [/^oracleLinux/i, "oracle"],
  [/^rockylinux/i, "rocky"],
  [/^almalinux/i, "alma"],
  [/^freebsd/i, "freebsd"],
  [/^other.*linux/i, "linux"],
];

export function guestOsShortName(guestId: string): string {
  return GUEST_OS.find(([pattern]) => pattern.test(guestId))?.[1] ?? "unknown";
}

export function instanceTypeOf(numCpu: number, memoryMB: number, guestId: string): string {
  return `vsphere-vm.cpu-${numCpu}.mem-${Math.floor(memoryMB / 1024)}gb.os-${guestOsShortName(guestId)}`;
}

/**
 * The instance type the upstream CPI reports: `vsphere-vm.cpu-<vCPUs>.mem-<GiB>gb.os-<guest OS>`, the
 * OS being upstream's short name for the VM's configured guest OS identifier, looked up exactly
 * (guest-os.ts), "unknown" when it is not in the table.
 */
import { GUEST_OS_NAMES } from "./guest-os.ts";

export function guestOsShortName(guestId: string): string {
  return Object.hasOwn(GUEST_OS_NAMES, guestId) ? (GUEST_OS_NAMES[guestId] ?? "unknown") : "unknown";
}

export function instanceTypeOf(numCpu: number, memoryMB: number, guestId: string): string {
  return `vsphere-vm.cpu-${numCpu}.mem-${Math.floor(memoryMB / 1024)}gb.os-${guestOsShortName(guestId)}`;
}

/**
 * IP and CIDR arithmetic on bigints, IPv4 and IPv6 alike. Used by the node-IP annotation check, the
 * route controller's cluster-CIDR containment rule, `--cluster-cidr` validation and IP pools.
 */
export type IPFamily = 4 | 6;

export interface IP {
  readonly family: IPFamily;
  readonly value: bigint;
}

export interface CIDR {
  readonly family: IPFamily;
  /** The network address (host bits cleared). */
  readonly base: bigint;
  readonly prefix: number;
}

export function bits(family: IPFamily): number {
  return family === 4 ? 32 : 128;
}

export function parseIP(text: string): IP | undefined {
  const trimmed = text.trim();
  if (trimmed.includes(":")) return parseIPv6(trimmed);
  const value = parseIPv4(trimmed);
  return value === undefined ? undefined : { family: 4, value };
}

function parseIPv4(text: string): bigint | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  let value = 0n;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255 || (part.length > 1 && part.startsWith("0"))) {
      return undefined;
    }
    value = (value << 8n) | BigInt(part);
  }
  return value;
}

function parseIPv6(text: string): IP | undefined {
  if (text.includes("%")) return undefined;
  const halves = text.split("::");
  const groups =
    halves.length === 2
      ? expand(halves[0] ?? "", halves[1] ?? "")
      : halves.length === 1
        ? parseGroups(text)
        : undefined;
  if (!groups || groups.length !== 8) return undefined;
  return { family: 6, value: groups.reduce((acc, g) => (acc << 16n) | g, 0n) };
}

/** "head::tail": the zero run must stand for at least one group. */
function expand(headText: string, tailText: string): bigint[] | undefined {
  const head = parseGroups(headText);
  const tail = parseGroups(tailText);
  if (!head || !tail) return undefined;
  const missing = 8 - head.length - tail.length;
  return missing < 1 ? undefined : [...head, ...Array<bigint>(missing).fill(0n), ...tail];
}

/** Hex groups of one side of "::"; a trailing dotted quad counts as two groups. */
function parseGroups(text: string): bigint[] | undefined {
  if (text === "") return [];
  const parts = text.split(":");
  const out: bigint[] = [];
  for (const [i, part] of parts.entries()) {
    if (i === parts.length - 1 && part.includes(".")) {
      const v4 = parseIPv4(part);
      if (v4 === undefined) return undefined;
      out.push(v4 >> 16n, v4 & 0xffffn);
    } else if (/^[0-9a-fA-F]{1,4}$/.test(part)) {
      out.push(BigInt(`0x${part}`));
    } else {
      return undefined;
    }
  }
  return out;
}

export function parseCIDR(text: string): CIDR | undefined {
  const [addr, prefixText, extra] = text.trim().split("/");
  if (addr === undefined || prefixText === undefined || extra !== undefined || !/^\d{1,3}$/.test(prefixText)) {
    return undefined;
  }
  const ip = parseIP(addr);
  const prefix = Number(prefixText);
  if (!ip || prefix > bits(ip.family)) return undefined;
  return { family: ip.family, base: ip.value & mask(ip.family, prefix), prefix };
}

function mask(family: IPFamily, prefix: number): bigint {
  const width = BigInt(bits(family));
  const hostBits = width - BigInt(prefix);
  return ((1n << width) - 1n) ^ ((1n << hostBits) - 1n);
}

export function lastAddress(cidr: CIDR): bigint {
  return cidr.base + (1n << BigInt(bits(cidr.family) - cidr.prefix)) - 1n;
}

export function cidrContains(cidr: CIDR, ip: IP): boolean {
  return cidr.family === ip.family && ip.value >= cidr.base && ip.value <= lastAddress(cidr);
}

export function ipEqual(a: IP, b: IP): boolean {
  return a.family === b.family && a.value === b.value;
}

export function isUnspecified(ip: IP): boolean {
  return ip.value === 0n;
}

export function formatIP(ip: IP): string {
  if (ip.family === 4) {
    return [24n, 16n, 8n, 0n].map((s) => ((ip.value >> s) & 0xffn).toString()).join(".");
  }
  const groups = Array.from({ length: 8 }, (_, i) => (ip.value >> BigInt(112 - 16 * i)) & 0xffffn);
  return compressIPv6(groups.map((g) => g.toString(16)));
}

/** RFC 5952: the longest run (length ≥ 2) of zero groups becomes "::". */
function compressIPv6(groups: string[]): string {
  let best = { start: -1, len: 0 };
  let run = { start: -1, len: 0 };
  groups.forEach((g, i) => {
    run = g === "0" ? { start: run.len === 0 ? i : run.start, len: run.len + 1 } : { start: -1, len: 0 };
    if (run.len > best.len) best = { ...run };
  });
  if (best.len < 2) return groups.join(":");
  const head = groups.slice(0, best.start).join(":");
  const tail = groups.slice(best.start + best.len).join(":");
  return `${head}::${tail}`;
}

export function formatCIDR(cidr: CIDR): string {
  return `${formatIP({ family: cidr.family, value: cidr.base })}/${cidr.prefix}`;
}

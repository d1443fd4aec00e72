/**
 * Text → value conversions with Go's rules (`time.ParseDuration`, `strconv.ParseBool`), so flags written
 * for the upstream binary mean the same here. Each returns undefined on bad input; callers name the flag.
 */
const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Parses a Go duration ("1h2m3.5s", "300ms", "0") into milliseconds. */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  const sign = trimmed.startsWith("-") ? -1 : 1;
  const body = /^[+-]/.test(trimmed) ? trimmed.slice(1) : trimmed;
  if (body === "0") return 0;
  const total = sumUnits(body);
  return total === undefined ? undefined : sign * total;
}

/** "1h2m3.5s" → ms; undefined unless the whole text is number+unit pairs. */
function sumUnits(body: string): number | undefined {
  if (body === "") return undefined;
  const part = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/gy;
  let total = 0;
  let consumed = 0;
  for (let m = part.exec(body); m; m = part.exec(body)) {
    total += Number(m[1]) * (UNIT_MS[m[2] ?? ""] ?? Number.NaN);
    consumed = part.lastIndex;
  }
  return consumed === body.length && !Number.isNaN(total) ? total : undefined;
}

/** Formats milliseconds the way Go prints a duration ("5m0s", "10s", "300ms"). */
export function formatDuration(ms: number): string {
  if (ms < 0) return `-${formatDuration(-ms)}`;
  if (ms === 0) return "0s";
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  if (h > 0) return `${h}h${m}m${s}s`;
  if (m > 0) return `${m}m${s}s`;
  return `${s}s`;
}

export function parseBool(text: string): boolean | undefined {
  if (["1", "t", "T", "true", "TRUE", "True"].includes(text)) return true;
  if (["0", "f", "F", "false", "FALSE", "False"].includes(text)) return false;
  return undefined;
}

/**
 * Go's integer literal, as pflag reads an int flag (`strconv.ParseInt(s, 0, …)`): decimal, `0x` hex, `0o`
 * or a leading `0` octal, `0b` binary, `_` between digits.
 */
const GO_INTEGER =
  /^[+-]?(?:0[xX](?:_?[\da-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+|0(?:_?[0-7])+|[1-9](?:_?\d)*|0)$/;

const RADIX: Readonly<Record<string, number>> = { x: 16, o: 8, b: 2 };

/** The radix of a Go integer literal's digits, and the digits without their prefix. */
function radixOf(digits: string): [radix: number, body: string] {
  const prefixed = digits.startsWith("0") ? RADIX[digits[1]?.toLowerCase() ?? ""] : undefined;
  if (prefixed !== undefined) return [prefixed, digits.slice(2)];
  return digits.length > 1 && digits.startsWith("0") ? [8, digits.slice(1)] : [10, digits];
}

export function parseInteger(text: string): number | undefined {
  const literal = text.trim();
  if (!GO_INTEGER.test(literal)) return undefined;
  const [radix, body] = radixOf(literal.replace(/^[+-]/, "").replaceAll("_", ""));
  const n = (literal.startsWith("-") ? -1 : 1) * Number.parseInt(body, radix);
  return Number.isSafeInteger(n) ? n : undefined;
}

export function parseNumber(text: string): number | undefined {
  if (text.trim() === "") return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}

export function splitList(text: string): string[] {
  return text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

const QUANTITY_SUFFIX: Readonly<Record<string, number>> = {
  "": 1,
  k: 1e3,
  K: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
};

/** A byte count as upstream's quantity flags write it ("512", "1K", "2Ki", "5Mi"); whole bytes only. */
export function parseByteQuantity(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)([kKMGT]i?)?$/.exec(text.trim());
  const factor = m ? QUANTITY_SUFFIX[m[2] ?? ""] : undefined;
  if (!m || factor === undefined) return undefined;
  const bytes = Number(m[1]) * factor;
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}

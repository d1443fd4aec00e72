/**
 * One consola root per process; each component logs through `withTag(name)`. `-v` maps onto consola
 * levels (0–3 info, 4–5 debug, 6+ trace). Two line formats: klog-like text, or one JSON object a line.
 * A trailing plain object argument carries structured fields (`log.info("Synced", { node })`).
 * consola's core build: the reporters are ours, and the full build's own reporters and prompts cost every
 * thread that loads them about 1.75 MiB (a controller thread waiting for its work: 11.5 MiB with them, 9.75
 * without).
 * Every call writes its line at once, as klog does: consola's throttle (on by default) would hold back a
 * line logged more than five times in a second and later write "(repeated N times)" instead, stamped
 * with the first one's time, so a burst of the same error would look like one and a kill -9 lose it.
 */
import { createConsola, type ConsolaInstance, type ConsolaReporter, type LogObject } from "consola/core";

export type Logger = ConsolaInstance;

export interface LoggerOptions {
  readonly verbosity: number;
  readonly format: "text" | "json";
  /** Where lines go (`error` for error lines, see sink.ts); defaults to stderr, like klog. */
  readonly write?: (line: string, error: boolean) => void;
}

export function consolaLevel(verbosity: number): number {
  if (verbosity >= 6) return 5;
  if (verbosity >= 4) return 4;
  return 3;
}

export function createLogger(options: LoggerOptions): Logger {
  const write: Write = options.write ?? ((line: string) => void process.stderr.write(line));
  const reporter = options.format === "json" ? jsonReporter(write) : textReporter(write);
  return createConsola({ level: consolaLevel(options.verbosity), reporters: [reporter], throttle: 0 });
}

interface Split {
  readonly message: string;
  readonly fields: Record<string, unknown>;
}

function splitArgs(args: readonly unknown[]): Split {
  const last = args.at(-1);
  const hasFields = args.length > 1 && isPlainObject(last);
  const parts = hasFields ? args.slice(0, -1) : args;
  const fields = hasFields ? last : {};
  return { message: parts.map(render).join(" "), fields };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

function render(value: unknown): string {
  if (value instanceof Error) return value.message;
  if (typeof value === "string") return value;
  return JSON.stringify(value) ?? String(value);
}

function severity(level: number): string {
  if (level <= 0) return "E";
  if (level === 1) return "W";
  return "I";
}

const pad = (n: number, width = 2): string => String(n).padStart(width, "0");

/**
 * klog header: `I1121 15:45:55.123456   12345 <tag>] message key="value"`, the process ID right-aligned
 * in seven places where klog writes it, and the component tag where klog writes the source file (glog
 * parsers read any word there).
 */
type Write = (line: string, error: boolean) => void;

function textReporter(write: Write): ConsolaReporter {
  const pid = String(process.pid).padStart(7);
  return {
    log(obj: LogObject): void {
      const d = obj.date;
      const stamp = `${pad(d.getMonth() + 1)}${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}000`;
      const { message, fields } = splitArgs(obj.args);
      const kv = Object.entries(fields).map(([k, v]) => ` ${k}=${JSON.stringify(renderField(v))}`);
      write(`${severity(obj.level)}${stamp} ${pid} ${obj.tag || "main"}] ${message}${kv.join("")}\n`, obj.level <= 0);
    },
  };
}

/** The `-v` a consola level shows from: info and warnings 0, debug 4, trace 6 (see `consolaLevel`). */
function verbosityOf(level: number): number {
  if (level >= 5) return 6;
  return level >= 4 ? 4 : 0;
}

function renderField(value: unknown): unknown {
  return value instanceof Error ? value.message : value;
}

function jsonReporter(write: Write): ConsolaReporter {
  return {
    log(obj: LogObject): void {
      const { message, fields } = splitArgs(obj.args);
      const extra = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, renderField(v)]));
      // component-base's JSON format: `ts` in milliseconds since the epoch, `v` the verbosity of an
      // info line (none on errors); `level` and `logger` are this manager's own.
      const line = {
        ts: obj.date.getTime(),
        ...(obj.level <= 0 ? {} : { v: verbosityOf(obj.level) }),
        level: obj.type,
        logger: obj.tag || "main",
        msg: message,
        ...extra,
      };
      write(`${JSON.stringify(line)}\n`, obj.level <= 0);
    },
  };
}

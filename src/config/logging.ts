/**
 * Upstream's logging output options (component-base): `--log-{text,json}-split-stream` sends errors to
 * stderr and the rest to stdout, `--log-{text,json}-info-buffer-size` holds info lines back up to that
 * many bytes, flushed every `--log-flush-frequency`. As upstream, the options of the active format
 * apply, and setting any of them needs the LoggingAlphaOptions feature gate.
 */
import type { LogOutputConfig } from "./config.ts";
import type { FlagReader } from "./flag-reader.ts";

const ALPHA_GATE = "LoggingAlphaOptions";

function formatOptions(r: FlagReader, format: "text" | "json", alpha: boolean): { split: boolean; buffer: number } {
  const split = r.bool(`log-${format}-split-stream`);
  const buffer = r.bytes(`log-${format}-info-buffer-size`);
  const needsGate = `needs the ${ALPHA_GATE} feature gate (--feature-gates=${ALPHA_GATE}=true), as upstream`;
  if (!alpha && split) r.fail(`log-${format}-split-stream`, needsGate);
  if (!alpha && buffer > 0) r.fail(`log-${format}-info-buffer-size`, needsGate);
  return { split, buffer };
}

export function readLogOutput(
  r: FlagReader,
  format: "text" | "json",
  gates: Readonly<Record<string, boolean>>,
): LogOutputConfig {
  const alpha = gates[ALPHA_GATE] === true;
  const text = formatOptions(r, "text", alpha);
  const json = formatOptions(r, "json", alpha);
  const active = format === "json" ? json : text;
  return {
    splitStream: active.split,
    infoBufferBytes: active.split ? active.buffer : 0,
    flushFrequencyMs: r.duration("log-flush-frequency", "positive"),
  };
}

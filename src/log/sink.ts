/**
 * Where log lines go, as upstream's logging options place them: one stream (stderr, klog's default
 * here) or, with `--log-text-split-stream` / `--log-json-split-stream`, errors to stderr and everything
 * else to stdout. `--log-*-info-buffer-size` lets stdout lines collect up to that many bytes; they are
 * written when the buffer is full, every `--log-flush-frequency`, before an error line (so order holds
 * across the streams as far as a reader can tell) and on `flush()` at exit.
 */
export interface SinkOptions {
  readonly splitStream: boolean;
  /** Bytes of info lines held back; 0 writes each line at once. */
  readonly infoBufferBytes: number;
  readonly flushFrequencyMs: number;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

export interface LogSink {
  write(line: string, error: boolean): void;
  flush(): void;
}

export function createLogSink(o: SinkOptions): LogSink {
  if (!o.splitStream) return { write: (line) => o.stderr(line), flush: () => undefined };
  let held: string[] = [];
  let bytes = 0;
  const flush = (): void => {
    if (held.length === 0) return;
    const text = held.join("");
    held = [];
    bytes = 0;
    o.stdout(text);
  };
  if (o.infoBufferBytes > 0) setInterval(flush, o.flushFrequencyMs).unref();
  return {
    write(line, error) {
      if (error) {
        flush();
        o.stderr(line);
        return;
      }
      if (o.infoBufferBytes === 0) return o.stdout(line);
      held.push(line);
      bytes += line.length;
      if (bytes >= o.infoBufferBytes) flush();
    },
    flush,
  };
}

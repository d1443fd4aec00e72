/** component-base logging flags, and the flags we add beyond upstream. */
import { MAX_CONTROLLER_THREADS } from "./config.ts";
import { compat, group } from "./flag-spec.ts";

export const loggingFlags = group("Logging", [
  ["v", "int", "0", "Number for the log level verbosity (4 and up: debug, 6 and up: trace).", { short: "v" }],
  ["logging-format", "enum", "text", "Sets the log format.", { options: ["text", "json"] }],
  ["vmodule", "string", "", "Accepted for compatibility: per-file verbosity is not supported.", compat],
  [
    "log-flush-frequency",
    "duration",
    "5s",
    "Maximum number of seconds between log flushes (buffered info lines, see --log-*-info-buffer-size).",
  ],
  [
    "log-text-split-stream",
    "bool",
    "false",
    "[Alpha] In text format, write error messages to stderr and info messages to stdout. Needs the LoggingAlphaOptions feature gate.",
  ],
  [
    "log-text-info-buffer-size",
    "string",
    "0",
    "[Alpha] In text format with split output streams, buffer up to this many bytes of info messages (512, 1K, 2Ki, 3M, 5Mi…; 0: none). Needs the LoggingAlphaOptions feature gate.",
  ],
  [
    "log-json-split-stream",
    "bool",
    "false",
    "[Alpha] In JSON format, write error messages to stderr and info messages to stdout. Needs the LoggingAlphaOptions feature gate.",
  ],
  [
    "log-json-info-buffer-size",
    "string",
    "0",
    "[Alpha] In JSON format with split output streams, buffer up to this many bytes of info messages (512, 1K, 2Ki, 3M, 5Mi…; 0: none). Needs the LoggingAlphaOptions feature gate.",
  ],
]);

export const beyondFlags = group("Beyond upstream", [
  [
    "load-balancer-class",
    "string",
    "",
    "Also serve LoadBalancer Services whose spec.loadBalancerClass equals this name (unset: classed Services are ignored, as upstream).",
  ],
  [
    "load-balancer-resync-period",
    "duration",
    "0s",
    "Re-ensure every load balancer this often to correct drift in the cloud (0: off, as upstream).",
  ],
  [
    "node-deletion-confirmation",
    "bool",
    "true",
    "Delete a NotReady node only when two 'instance does not exist' answers at least one --node-monitor-period apart agree.",
  ],
  [
    "cloud-batch-window",
    "duration",
    "5ms",
    "How long node controllers collect keys before one batched cloud lookup (providers that offer batching).",
  ],
  ["cloud-batch-size", "int", "100", "The most nodes asked about in one batched cloud lookup."],
  [
    "leader-elect-release-on-shutdown",
    "bool",
    "true",
    "On SIGTERM/SIGINT let in-flight syncs finish and release the Lease so a standby takes over at once.",
  ],
  [
    "shutdown-grace-period",
    "duration",
    "20s",
    "How long in-flight syncs may run after SIGTERM/SIGINT before the manager exits.",
  ],
  [
    "controller-threads",
    "int",
    "0",
    `Run controllers in this many worker threads (at most ${MAX_CONTROLLER_THREADS}), each taking its share of every controller's keys (0: all in the main thread).`,
  ],
]);

/** A ProviderContext for tests: quiet logger, calls recorded for assertions. */
import type { CallOutcome, ProviderContext } from "../../src/cloud/provider.ts";
import { createLogger } from "../../src/log/logger.ts";

export interface RecordedCall {
  readonly operation: string;
  readonly outcome: CallOutcome;
}

export function testProviderContext(
  calls: RecordedCall[] = [],
  lines: string[] = [],
  env: ProviderContext["env"] = {},
): ProviderContext {
  return {
    env,
    logger: createLogger({ verbosity: 0, format: "text", write: (line) => lines.push(line) }),
    clusterName: "test",
    namespace: "kube-system",
    observeCall: (operation, _seconds, outcome) => calls.push({ operation, outcome }),
    observeConfigurationDrift: (drifting) =>
      calls.push({ operation: "ConfigurationDrift", outcome: drifting ? "error" : "success" }),
  };
}

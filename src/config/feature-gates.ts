/**
 * The feature gates upstream's cloud-controller-manager v1.36 registers (its `--help` lists them): the
 * ones `--feature-gates` accepts, reported by `kubernetes_feature_enabled`. None changes this manager's
 * behaviour (the controllers have no alpha paths; webhooks are not served), so an unknown gate is the only
 * error: it is a typo or a gate of another component, and upstream refuses it too.
 */
import { parseBool } from "./values.ts";

export type FeatureStage = "ALPHA" | "BETA" | "";

export interface FeatureGate {
  readonly name: string;
  readonly stage: FeatureStage;
  readonly enabledByDefault: boolean;
}

export const FEATURE_GATES: readonly FeatureGate[] = [
  { name: "APIResponseCompression", stage: "BETA", enabledByDefault: true },
  { name: "APIServerIdentity", stage: "BETA", enabledByDefault: true },
  { name: "APIServingWithRoutine", stage: "ALPHA", enabledByDefault: false },
  { name: "AllAlpha", stage: "ALPHA", enabledByDefault: false },
  { name: "AllBeta", stage: "BETA", enabledByDefault: false },
  { name: "AllowParsingUserUIDFromCertAuth", stage: "BETA", enabledByDefault: true },
  { name: "AllowUnsafeMalformedObjectDeletion", stage: "ALPHA", enabledByDefault: false },
  { name: "CBORServingAndStorage", stage: "ALPHA", enabledByDefault: false },
  { name: "CloudControllerManagerWatchBasedRoutesReconciliation", stage: "ALPHA", enabledByDefault: false },
  { name: "CloudControllerManagerWebhook", stage: "ALPHA", enabledByDefault: false },
  { name: "ComponentFlagz", stage: "BETA", enabledByDefault: true },
  { name: "ComponentStatusz", stage: "BETA", enabledByDefault: true },
  { name: "ConcurrentWatchObjectDecode", stage: "BETA", enabledByDefault: false },
  { name: "ConstrainedImpersonation", stage: "BETA", enabledByDefault: true },
  { name: "ContextualLogging", stage: "BETA", enabledByDefault: true },
  { name: "ControllerManagerReleaseLeaderElectionLockOnExit", stage: "ALPHA", enabledByDefault: false },
  { name: "CoordinatedLeaderElection", stage: "BETA", enabledByDefault: false },
  { name: "DeclarativeValidationBeta", stage: "BETA", enabledByDefault: true },
  { name: "DetectCacheInconsistency", stage: "BETA", enabledByDefault: true },
  { name: "ListFromCacheSnapshot", stage: "BETA", enabledByDefault: true },
  { name: "LoggingAlphaOptions", stage: "ALPHA", enabledByDefault: false },
  { name: "LoggingBetaOptions", stage: "BETA", enabledByDefault: true },
  { name: "ManifestBasedAdmissionControlConfig", stage: "ALPHA", enabledByDefault: false },
  { name: "NativeHistograms", stage: "ALPHA", enabledByDefault: false },
  { name: "OpenAPIEnums", stage: "BETA", enabledByDefault: true },
  { name: "RemoteRequestHeaderUID", stage: "BETA", enabledByDefault: true },
  { name: "ShardedListAndWatch", stage: "ALPHA", enabledByDefault: false },
  { name: "SizeBasedListCostEstimate", stage: "BETA", enabledByDefault: true },
  { name: "StorageVersionAPI", stage: "ALPHA", enabledByDefault: false },
  { name: "StorageVersionHash", stage: "BETA", enabledByDefault: true },
  { name: "StructuredAuthenticationConfigurationEgressSelector", stage: "BETA", enabledByDefault: true },
  { name: "StructuredAuthenticationConfigurationJWKSMetrics", stage: "BETA", enabledByDefault: true },
  { name: "TokenRequestServiceAccountUIDValidation", stage: "BETA", enabledByDefault: true },
  { name: "UnauthenticatedHTTP2DOSMitigation", stage: "BETA", enabledByDefault: true },
  { name: "UnknownVersionInteroperabilityProxy", stage: "BETA", enabledByDefault: true },
  { name: "WatchCacheInitializationPostStartHook", stage: "BETA", enabledByDefault: true },
  { name: "WatchList", stage: "BETA", enabledByDefault: true },
];

/**
 * Each gate's value for `--feature-gates` pairs (`Name=true|false`, comma-separated), with upstream's
 * `AllAlpha` / `AllBeta` shorthands for the gates not named; or one error per bad pair.
 */
export function resolveFeatureGates(
  pairs: readonly string[],
): { ok: true; enabled: ReadonlyMap<string, boolean> } | { ok: false; errors: string[] } {
  const errors: string[] = [];
  const explicit = new Map<string, boolean>();
  for (const pair of pairs) {
    if (pair === "") continue; // as upstream: `A=true,,B=false` has two pairs
    // Upstream trims the name and the value and reads the value as Go's strconv.ParseBool does.
    const match = /^\s*([A-Za-z0-9]+)\s*=(.*)$/.exec(pair);
    const value = match && parseBool(match[2]!.trim());
    const gate = FEATURE_GATES.find((g) => g.name === match?.[1]);
    if (!match || value === undefined) errors.push(`${JSON.stringify(pair)} is not Name=true|false`);
    else if (!gate) errors.push(`unrecognized feature gate: ${match[1]} (--help lists the known ones)`);
    else explicit.set(gate.name, value === true);
  }
  if (errors.length > 0) return { ok: false, errors };
  const all = (stage: FeatureStage): boolean => explicit.get(stage === "ALPHA" ? "AllAlpha" : "AllBeta") === true;
  const enabled = new Map(
    FEATURE_GATES.map((g) => [g.name, explicit.get(g.name) ?? (all(g.stage) || g.enabledByDefault)]),
  );
  return { ok: true, enabled };
}

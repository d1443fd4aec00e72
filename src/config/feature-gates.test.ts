import { describe, expect, test } from "bun:test";
import { resolveFeatureGates } from "./feature-gates.ts";

describe("feature gates", () => {
  test("defaults, explicit values and AllAlpha for the gates not named", () => {
    const r = resolveFeatureGates(["AllAlpha=true", "CloudControllerManagerWebhook=false", "WatchList=false"]);
    if (!r.ok) throw new Error(r.errors.join("; "));
    expect(r.enabled.get("CloudControllerManagerWatchBasedRoutesReconciliation")).toBe(true);
    expect(r.enabled.get("CloudControllerManagerWebhook")).toBe(false);
    expect(r.enabled.get("WatchList")).toBe(false);
    expect(r.enabled.get("ContextualLogging")).toBe(true);
  });

  test("values as Go's strconv.ParseBool reads them, names and values trimmed, empty pairs skipped", () => {
    const r = resolveFeatureGates(["AllAlpha=1", " WatchList = F", "", "ContextualLogging=T"]);
    if (!r.ok) throw new Error(r.errors.join("; "));
    expect(r.enabled.get("CloudControllerManagerWatchBasedRoutesReconciliation")).toBe(true);
    expect(r.enabled.get("WatchList")).toBe(false);
    expect(r.enabled.get("ContextualLogging")).toBe(true);
    expect(resolveFeatureGates(["WatchList=tRuE"]).ok).toBe(false);
  });

  test("an unknown gate names itself (the known ones are in --help); a bad value is refused", () => {
    const r = resolveFeatureGates(["NoSuchGate=true", "WatchList=maybe"]);
    expect(r.ok).toBe(false);
    const errors = r.ok ? [] : r.errors;
    expect(errors[0]).toMatch(/^unrecognized feature gate: NoSuchGate \(--help lists the known ones\)$/);
    expect(errors[1]).toBe('"WatchList=maybe" is not Name=true|false');
  });
});

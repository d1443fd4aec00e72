import { describe, expect, test } from "bun:test";
import { inputProblems, type UnreadableInput } from "./install-plan.ts";

const enoent = (flag: string, path: string): UnreadableInput => ({
  flag,
  path,
  reason: `ENOENT: no such file or directory, access '${path}'`,
});

describe("inputProblems: a preview warns about missing inputs, a real install refuses them", () => {
  const kubeconfig = enoent("kubeconfig", "/etc/kubernetes/cloud-controller-manager.conf");
  const cloudConfig = enoent("cloud-config", "/etc/kubernetes/cloud.conf");
  const cases: { name: string; missing: UnreadableInput[]; preview: boolean; errors: string[]; warnings: string[] }[] =
    [
      { name: "nothing missing, install", missing: [], preview: false, errors: [], warnings: [] },
      { name: "nothing missing, preview", missing: [], preview: true, errors: [], warnings: [] },
      {
        name: "kubeconfig missing, install",
        missing: [kubeconfig],
        preview: false,
        errors: [
          `invalid value "/etc/kubernetes/cloud-controller-manager.conf" for flag --kubeconfig: cannot read it: ${kubeconfig.reason}`,
        ],
        warnings: [],
      },
      {
        name: "both missing, preview: one warning each, in order",
        missing: [kubeconfig, cloudConfig],
        preview: true,
        errors: [],
        warnings: [
          `/etc/kubernetes/cloud-controller-manager.conf (--kubeconfig) cannot be read yet: ${kubeconfig.reason}; put it in place before starting the service`,
          `/etc/kubernetes/cloud.conf (--cloud-config) cannot be read yet: ${cloudConfig.reason}; put it in place before starting the service`,
        ],
      },
    ];
  for (const c of cases) {
    test(c.name, () => {
      expect(inputProblems(c.missing, c.preview)).toEqual({ errors: c.errors, warnings: c.warnings });
    });
  }
});

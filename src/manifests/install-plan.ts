/**
 * What `install systemd` writes and what it asks the operator to do next: pure, so the command only
 * checks readability, writes and prints.
 */
import { ARGS_VARIABLE, environmentFile, systemdUnit, sysusersEntry } from "./systemd.ts";
import { DEFAULTS, NAME, type PackageOptions } from "./options.ts";

export interface PlannedFile {
  /** The path on the target system (the command may write it under another root). */
  readonly path: string;
  readonly content: string;
  readonly mode: number;
}

export interface InstallPlan {
  readonly files: readonly PlannedFile[];
  readonly nextSteps: readonly string[];
}

/**
 * `readable` are the files the service reads (kubeconfig, cloud-config, certificates the kubeconfig
 * names): the unit's group gets read access to them, nothing else does.
 */
export function installPlan(o: PackageOptions, readable: readonly string[]): InstallPlan {
  const files: PlannedFile[] = [
    { path: DEFAULTS.sysusersFile, content: sysusersEntry(), mode: 0o644 },
    { path: o.envFile, content: environmentFile(o), mode: 0o644 },
    { path: DEFAULTS.unitFile, content: systemdUnit(o), mode: 0o644 },
  ];
  const paths = [...new Set(readable)].join(" ");
  const nextSteps = [
    `systemd-sysusers ${DEFAULTS.sysusersFile}`,
    ...(readable.length > 0 ? [`chgrp ${NAME} ${paths}`, `chmod g+r ${paths}`] : []),
    `${o.binary} check ${o.args.join(" ")}`,
    `systemctl daemon-reload && systemctl enable --now ${NAME}`,
  ];
  return { files, nextSteps };
}

export function renderNextSteps(plan: InstallPlan): string {
  return [
    `next steps, as root (flags live in ${ARGS_VARIABLE} of the environment file):`,
    ...plan.nextSteps.map((s) => `  ${s}`),
    "",
  ].join("\n");
}

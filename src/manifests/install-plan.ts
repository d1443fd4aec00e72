/**
 * What `install systemd` writes and what it asks the operator to do next: pure, so the command only
 * checks readability, writes and prints.
 */
import { ARGS_VARIABLE, environmentFile, stateDirectoryOf, systemdUnit, sysusersEntry } from "./systemd.ts";
import { DEFAULTS, NAME, type HostFile, type PackageOptions } from "./options.ts";

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
  const certDir = o.config.serving.certDir;
  // The unit's own state directory is made by systemd; any other must exist (made here only if missing).
  const makeCertDir = certDir !== "" && stateDirectoryOf(certDir) === undefined;
  const nextSteps = [
    `systemd-sysusers ${DEFAULTS.sysusersFile}`,
    ...(readable.length > 0 ? [`chgrp ${NAME} ${paths}`, `chmod g+r ${paths}`] : []),
    ...(makeCertDir ? [`test -d ${certDir} || install -d -o ${NAME} -g ${NAME} -m 0700 ${certDir}`] : []),
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

/** An input of the service (kubeconfig, cloud-config, certificate) that cannot be read now. */
export interface UnreadableInput extends HostFile {
  readonly reason: string;
}

export interface InputProblems {
  /** Refuse: exit 2, write nothing. */
  readonly errors: readonly string[];
  /** Go on: the operator puts the file in place before starting the service. */
  readonly warnings: readonly string[];
}

/**
 * A real install refuses inputs it cannot read (the unit would fail at start); a preview (`--dry-run`,
 * `manifests systemd`) only warns, since it is often run before kubeadm or the operator writes
 * `/etc/kubernetes/*`. One line per file, naming the flag.
 */
export function inputProblems(missing: readonly UnreadableInput[], preview: boolean): InputProblems {
  if (preview) {
    const warnings = missing.map(
      (f) => `${f.path} (--${f.flag}) cannot be read yet: ${f.reason}; put it in place before starting the service`,
    );
    return { errors: [], warnings };
  }
  const errors = missing.map(
    (f) => `invalid value ${JSON.stringify(f.path)} for flag --${f.flag}: cannot read it: ${f.reason}`,
  );
  return { errors, warnings: [] };
}

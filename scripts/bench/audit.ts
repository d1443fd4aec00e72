/**
 * Kube API requests per verb, counted the same way for both managers: the API server's audit log
 * (Metadata level, every request of the managers' user and nothing else), read from a byte offset taken
 * when a run starts. A watch counts when it starts; every other request when it completes. Requests the
 * API server refused (429 from priority and fairness, 409 conflicts) are counted too, and also by code.
 */
import { existsSync, openSync, readSync, closeSync, statSync } from "node:fs";
import { CCM_USER } from "../../src/manifests/rbac.ts";

/** Audit rules for `startControlPlane({ auditRules })`. */
export function auditRules(user = CCM_USER): object[] {
  return [{ level: "Metadata", users: [user] }, { level: "None" }];
}

export interface RequestCounts {
  readonly total: number;
  /** "patch nodes/status" → count. */
  readonly byVerb: Record<string, number>;
  /** Non-2xx answers by HTTP code. */
  readonly errors: Record<string, number>;
}

interface AuditEvent {
  stage?: string;
  verb?: string;
  user?: { username?: string };
  objectRef?: { resource?: string; subresource?: string };
  requestURI?: string;
  responseStatus?: { code?: number };
}

export function auditOffset(path: string): number {
  return existsSync(path) ? statSync(path).size : 0;
}

export function countRequests(path: string, fromOffset: number, user = CCM_USER): RequestCounts {
  const byVerb: Record<string, number> = {};
  const errors: Record<string, number> = {};
  let total = 0;
  for (const line of readFrom(path, fromOffset).split("\n")) {
    const event = parse(line);
    if (!event || event.user?.username !== user || !counted(event)) continue;
    increment(byVerb, requestKey(event));
    total += 1;
    const code = event.responseStatus?.code ?? 0;
    if (code >= 300) increment(errors, String(code));
  }
  return { total, byVerb: sortKeys(byVerb), errors };
}

/** "patch nodes/status", or the path for non-resource requests ("get /healthz"). */
function requestKey(event: AuditEvent): string {
  const ref = event.objectRef;
  const what = ref?.resource
    ? `${ref.resource}${ref.subresource ? `/${ref.subresource}` : ""}`
    : (event.requestURI ?? "?");
  return `${event.verb ?? "?"} ${what}`;
}

function increment(record: Record<string, number>, key: string): void {
  record[key] = (record[key] ?? 0) + 1;
}

function counted(event: AuditEvent): boolean {
  return event.verb === "watch" ? event.stage === "ResponseStarted" : event.stage === "ResponseComplete";
}

function parse(line: string): AuditEvent | undefined {
  if (line.trim() === "") return undefined;
  try {
    return JSON.parse(line) as AuditEvent;
  } catch {
    return undefined;
  }
}

function readFrom(path: string, offset: number): string {
  if (!existsSync(path)) return "";
  const size = statSync(path).size;
  if (size <= offset) return "";
  const buffer = Buffer.alloc(size - offset);
  const fd = openSync(path, "r");
  try {
    readSync(fd, buffer, 0, buffer.length, offset);
  } finally {
    closeSync(fd);
  }
  return buffer.toString("utf8");
}

function sortKeys(record: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}

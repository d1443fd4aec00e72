/**
 * The only code that talks to BMCs: one GET of a Redfish ComputerSystem resource, with HTTP basic
 * authentication (every Redfish service accepts it; no session to keep or leak). Every HTTP answer is
 * returned as such, and a request with no answer (refused, TLS failure, timeout) as a `failure`: what the
 * answer means is power-state.ts's to decide. Every call reports to `observeCall`.
 */
import { readFileSync } from "node:fs";
import type { CallOutcome } from "../../src/cloud/provider.ts";
import type { BmcSettings } from "./bmc-config.ts";
import type { RedfishReply } from "./power-state.ts";

export interface Login {
  readonly username: string;
  readonly password: string;
}

export interface RedfishApiDeps {
  readonly observeCall: (operation: string, seconds: number, outcome: CallOutcome) => void;
  /** Per request; a healthy BMC answers in well under a second, a busy one in a few. */
  readonly timeoutMs?: number;
  /** Reads a `caFile`; the file system by default. */
  readonly readFile?: (path: string) => string;
}

export interface RedfishApi {
  getSystem(bmc: BmcSettings, login: Login | undefined, signal?: AbortSignal): Promise<RedfishReply>;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const OPERATION = "redfish:GetSystem";

function outcomeOf(reply: RedfishReply): CallOutcome {
  if ("failure" in reply) return "error";
  if (reply.status === 429 || reply.status === 503) return "throttled";
  return reply.status === 200 || reply.status === 404 ? "success" : "error";
}

async function powerStateOf(response: Response): Promise<unknown> {
  const body = (await response.json().catch(() => undefined)) as { PowerState?: unknown } | undefined;
  return typeof body === "object" && body !== null ? body.PowerState : undefined;
}

export function createRedfishApi(deps: RedfishApiDeps): RedfishApi {
  const timeoutMs = deps.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const readFile = deps.readFile ?? ((path: string): string => readFileSync(path, "utf8"));

  const tlsOf = (bmc: BmcSettings): object => {
    if (bmc.disableCertificateVerification) return { rejectUnauthorized: false };
    return bmc.caFile === undefined ? {} : { ca: readFile(bmc.caFile) };
  };

  async function request(bmc: BmcSettings, login: Login | undefined, signal?: AbortSignal): Promise<RedfishReply> {
    const timeout = AbortSignal.timeout(timeoutMs);
    const headers: Record<string, string> = { accept: "application/json", "odata-version": "4.0" };
    if (login) headers.authorization = `Basic ${Buffer.from(`${login.username}:${login.password}`).toString("base64")}`;
    try {
      const response = await fetch(bmc.url, {
        headers,
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        tls: tlsOf(bmc),
      } as RequestInit);
      if (response.status !== 200) {
        await response.body?.cancel();
        return { status: response.status };
      }
      return { status: 200, powerState: await powerStateOf(response) };
    } catch (error) {
      const timedOut = timeout.aborted && !signal?.aborted;
      return { failure: timedOut ? `no answer within ${timeoutMs} ms` : (error as Error).message };
    }
  }

  return {
    async getSystem(bmc, login, signal) {
      const started = performance.now();
      const reply = await request(bmc, login, signal);
      deps.observeCall(OPERATION, (performance.now() - started) / 1000, outcomeOf(reply));
      return reply;
    },
  };
}

/**
 * The only code that talks to BMCs: a GET of a Redfish ComputerSystem resource, and of the Systems
 * collection it belongs to (asked only to confirm a 404), with HTTP basic authentication (every Redfish
 * service accepts it; no session to keep or leak). Redirects are not followed (a redirect that ends in a
 * 404 must not read as "the system is gone"): a 3xx is returned as such. Every HTTP answer is returned as
 * such, and a request with no answer (refused, TLS failure, timeout) as a `failure`: what the answer means
 * is power-state.ts's to decide. Every call reports to `observeCall`.
 */
import { readFileSync } from "node:fs";
import type { CallOutcome } from "../../src/cloud/provider.ts";
import type { BmcSettings } from "./bmc-config.ts";
import { listsSystem, systemsUrlOf, type RedfishReply, type SystemsReply } from "./power-state.ts";

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
  /** The Systems collection `bmc.url` belongs to, and whether it lists that system. */
  getSystems(bmc: BmcSettings, login: Login | undefined, signal?: AbortSignal): Promise<SystemsReply>;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const GET_SYSTEM = "redfish:GetSystem";
const GET_SYSTEMS = "redfish:GetSystems";

function outcomeOf(reply: RedfishReply | SystemsReply): CallOutcome {
  if ("failure" in reply) return "error";
  if (reply.status === 429 || reply.status === 503) return "throttled";
  return reply.status === 200 || reply.status === 404 ? "success" : "error";
}

const bodyOf = async (response: Response): Promise<unknown> => response.json().catch(() => undefined);

async function powerStateOf(response: Response): Promise<unknown> {
  const body = (await bodyOf(response)) as { PowerState?: unknown } | undefined;
  return typeof body === "object" && body !== null ? body.PowerState : undefined;
}

export function createRedfishApi(deps: RedfishApiDeps): RedfishApi {
  const timeoutMs = deps.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const readFile = deps.readFile ?? ((path: string): string => readFileSync(path, "utf8"));

  const tlsOf = (bmc: BmcSettings): object => {
    if (bmc.disableCertificateVerification) return { rejectUnauthorized: false };
    return bmc.caFile === undefined ? {} : { ca: readFile(bmc.caFile) };
  };

  /** One GET of `url`; a non-200 answer's body is dropped, a 200's is read by `read`. */
  async function get<T>(
    bmc: BmcSettings,
    url: string,
    call: { login?: Login; signal?: AbortSignal; read: (response: Response) => Promise<T> },
  ): Promise<{ status: number; value?: T } | { failure: string }> {
    const timeout = AbortSignal.timeout(timeoutMs);
    const { login, signal } = call;
    const headers: Record<string, string> = { accept: "application/json", "odata-version": "4.0" };
    if (login) headers.authorization = `Basic ${Buffer.from(`${login.username}:${login.password}`).toString("base64")}`;
    try {
      const response = await fetch(url, {
        headers,
        redirect: "manual",
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        tls: tlsOf(bmc),
      } as RequestInit);
      if (response.status !== 200) {
        await response.body?.cancel();
        return { status: response.status };
      }
      return { status: 200, value: await call.read(response) };
    } catch (error) {
      const timedOut = timeout.aborted && !signal?.aborted;
      return { failure: timedOut ? `no answer within ${timeoutMs} ms` : (error as Error).message };
    }
  }

  async function timed<T extends RedfishReply | SystemsReply>(operation: string, call: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const reply = await call();
    deps.observeCall(operation, (performance.now() - started) / 1000, outcomeOf(reply));
    return reply;
  }

  return {
    getSystem: (bmc, login, signal) =>
      timed(GET_SYSTEM, async (): Promise<RedfishReply> => {
        const reply = await get(bmc, bmc.url, { login, signal, read: powerStateOf });
        return "status" in reply && reply.status === 200 ? { status: 200, powerState: reply.value } : reply;
      }),
    getSystems: (bmc, login, signal) =>
      timed(GET_SYSTEMS, async (): Promise<SystemsReply> => {
        const read = async (response: Response): Promise<boolean | undefined> =>
          listsSystem(await bodyOf(response), bmc.url);
        const reply = await get(bmc, systemsUrlOf(bmc.url), { login, signal, read });
        return "status" in reply ? { status: reply.status, listed: reply.value } : reply;
      }),
  };
}

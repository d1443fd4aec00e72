/**
 * Delegated authentication and authorization, as upstream's serving chain does it: a client certificate
 * (request-header proxy, then x509; see client-auth.ts) or else a bearer token checked with a TokenReview,
 * and the request with a SubjectAccessReview for its non-resource path and verb.
 * Answers are cached for the TTLs of the `--authentication-*` / `--authorization-*` flags. Paths in
 * `--authorization-always-allow-paths` skip both; `system:masters` skips the access review.
 */
import { createHash } from "node:crypto";
import { SUBJECT_ACCESS_REVIEWS, TOKEN_REVIEWS, type KubeApi } from "../kube/api.ts";
import { KubeApiError } from "../kube/transport.ts";
import { errorMessage } from "../kube/worker.ts";
import type { Logger } from "../log/logger.ts";
import { authenticateCertificate, type ClientCertAuth, type PeerRequest, type UserInfo } from "./client-auth.ts";
import { BoundedMap } from "../util/bounded-map.ts";

/** Upstream's anonymous user (apiserver's anonymous authenticator). */
const ANONYMOUS: UserInfo = { username: "system:anonymous", groups: ["system:unauthenticated"] };

export interface AuthOptions {
  readonly authn: KubeApi;
  /** Client-certificate and request-header authentication, tried before bearer tokens (as upstream). */
  readonly certificates?: () => ClientCertAuth;
  readonly authz: KubeApi;
  readonly alwaysAllowPaths: readonly string[];
  readonly authnTtlMs: number;
  readonly allowedTtlMs: number;
  readonly deniedTtlMs: number;
  readonly logger: Logger;
  readonly now?: () => number;
  /** Each TokenReview and SubjectAccessReview: its HTTP status (`<error>` without one) and duration. */
  readonly observe?: (review: "authn" | "authz", code: string, seconds: number) => void;
}

export type Verdict = { allowed: true } | { allowed: false; status: 401 | 403; reason: string };

interface Cached<T> {
  readonly value: T;
  readonly until: number;
}

/** Reviews cached: at most 1,024, each kept for at least the 512 reviews after its last use. */
const MAX_CACHED = 1024;

function remember<T>(cache: BoundedMap<Cached<T>>, key: string, entry: Cached<T>): T {
  cache.set(key, entry);
  return entry.value;
}

interface ReviewedUser {
  status?: { authenticated?: boolean; user?: Partial<UserInfo> };
}

function userOf(review: ReviewedUser): UserInfo | undefined {
  const user = review.status?.user;
  if (!review.status?.authenticated || !user) return undefined;
  return { username: user.username ?? "", uid: user.uid, groups: user.groups ?? [], extra: user.extra };
}

/** `/metrics` matches `/metrics`; `/healthz*`-style prefixes as upstream (`*` suffix). */
export function pathAllowed(path: string, allowed: readonly string[]): boolean {
  return allowed.some((p) => (p.endsWith("*") ? path.startsWith(p.slice(0, -1)) : path === p));
}

/** Runs one review, reporting its status code and duration. */
async function timed<T>(o: AuthOptions, review: "authn" | "authz", call: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const seconds = (): number => (performance.now() - started) / 1000;
  try {
    const answer = await call();
    o.observe?.(review, "201", seconds());
    return answer;
  } catch (error) {
    o.observe?.(review, error instanceof KubeApiError ? String(error.status) : "<error>", seconds());
    throw error;
  }
}

export function createAuthorizer(o: AuthOptions): (req: Request, path: string, peer?: PeerRequest) => Promise<Verdict> {
  const now = o.now ?? Date.now;
  const tokens = new BoundedMap<Cached<UserInfo | undefined>>(MAX_CACHED);
  const decisions = new BoundedMap<Cached<boolean>>(MAX_CACHED);

  async function authenticate(token: string): Promise<UserInfo | undefined> {
    const key = createHash("sha256").update(token).digest("hex");
    const hit = tokens.get(key);
    if (hit && hit.until > now()) return hit.value;
    const review = await timed(o, "authn", () =>
      o.authn.create(TOKEN_REVIEWS, { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token } }),
    );
    return remember(tokens, key, { value: userOf(review as ReviewedUser), until: now() + o.authnTtlMs });
  }

  async function authorize(user: UserInfo, path: string, verb: string): Promise<boolean> {
    if (user.groups.includes("system:masters")) return true;
    const key = JSON.stringify([user.username, user.uid, user.groups, path, verb]);
    const hit = decisions.get(key);
    if (hit && hit.until > now()) return hit.value;
    const review = await timed(o, "authz", () =>
      o.authz.create(SUBJECT_ACCESS_REVIEWS, {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SubjectAccessReview",
        spec: {
          user: user.username,
          uid: user.uid,
          groups: user.groups,
          extra: user.extra,
          nonResourceAttributes: { path, verb },
        },
      }),
    );
    const allowed = (review as { status?: { allowed?: boolean } }).status?.allowed === true;
    return remember(decisions, key, { value: allowed, until: now() + (allowed ? o.allowedTtlMs : o.deniedTtlMs) });
  }

  /**
   * The request's user; undefined when its credentials are refused. A request with none is anonymous,
   * as upstream's delegating authentication has it by default: its SubjectAccessReview decides (usually
   * 403), so RBAC may grant a path to `system:unauthenticated`.
   */
  async function identify(req: Request, peer: PeerRequest | undefined): Promise<UserInfo | undefined> {
    const byCertificate = certificateUser(peer);
    if (byCertificate !== "refused" && byCertificate) return byCertificate;
    const token = /^Bearer\s+(\S+)$/i.exec(req.headers.get("authorization") ?? "")?.[1];
    if (token) return authenticate(token);
    return byCertificate || req.headers.has("authorization") ? undefined : ANONYMOUS;
  }

  /**
   * The user a client certificate names; "refused" for one that names none or that no CA vouches for (an
   * error, as upstream's x509 authenticator has it: 401, not anonymous); undefined without a certificate.
   */
  function certificateUser(peer: PeerRequest | undefined): UserInfo | "refused" | undefined {
    if (!peer || !o.certificates || peer.chain.length === 0) return undefined;
    const verdict = authenticateCertificate(o.certificates(), peer);
    if (verdict && "user" in verdict) return verdict.user;
    o.logger.debug(`client certificate refused: ${verdict?.error ?? "no CA this server trusts signed it"}`);
    return "refused";
  }

  return async (req, path, peer) => {
    if (pathAllowed(path, o.alwaysAllowPaths)) return { allowed: true };
    try {
      const user = await identify(req, peer);
      if (!user) return { allowed: false, status: 401, reason: "Unauthorized" };
      const verb = req.method === "GET" || req.method === "HEAD" ? "get" : req.method.toLowerCase();
      if (await authorize(user, path, verb)) return { allowed: true };
      return {
        allowed: false,
        status: 403,
        reason: `Forbidden: user "${user.username}" cannot ${verb} path "${path}"`,
      };
    } catch (error) {
      o.logger.warn(`delegated auth for ${path} failed: ${errorMessage(error)}`);
      return {
        allowed: false,
        status: 401,
        reason: "Unauthorized: authentication or authorization could not be checked",
      };
    }
  };
}

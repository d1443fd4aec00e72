/**
 * Credentials for every client: the SDK's default chain (environment, SSO, web identity, shared files,
 * container and instance roles), or, with `RoleARN`, temporary credentials from STS AssumeRole made
 * with that chain's credentials, refreshed by the SDK before they expire (upstream's stscreds
 * provider). `SourceARN` goes with each AssumeRole as the `x-amz-source-arn` / `x-amz-source-account`
 * headers upstream sends, for roles whose trust policy checks `aws:SourceArn` / `aws:SourceAccount`.
 * The SDK's credential providers (and the STS client they bring) load only when a role is configured:
 * they would otherwise add to every process's memory, whatever its provider.
 */
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from "@aws-sdk/types";
import type { AssumeRole } from "./config.ts";

export type Credentials = AwsCredentialIdentity | AwsCredentialIdentityProvider;

interface HeaderArgs {
  readonly request: { headers?: Record<string, string> };
}
type Next = (args: HeaderArgs) => Promise<unknown>;

/** A client plugin adding fixed headers to each request, before signing so they are signed too. */
function headersPlugin(headers: Readonly<Record<string, string>>): {
  applyToStack: (stack: { add: (m: unknown, o: unknown) => void }) => void;
} {
  const middleware = (next: Next) => (args: HeaderArgs) => {
    const request = args.request;
    if (request.headers) Object.assign(request.headers, headers);
    return next(args);
  };
  return { applyToStack: (stack) => stack.add(middleware, { step: "build", name: "sourceArnHeaders" }) };
}

/** The account of an ARN (`arn:partition:service:region:account:resource`), or empty. */
export function accountOf(arn: string): string {
  return arn.split(":")[4] ?? "";
}

export interface AssumeRoleClient {
  /** The STS client's region (the configured one; STS is regional). */
  readonly region: string | undefined;
  /** An `sts` override's URL; else the SDK's regional STS endpoint. */
  readonly endpoint: string | undefined;
  readonly signingRegion: string | undefined;
  readonly requestTimeoutMs: number;
}

/** The caller's credentials unchanged, or an AssumeRole provider built on them. */
export function roleCredentials(
  role: AssumeRole | undefined,
  caller: Credentials | undefined,
  sts: AssumeRoleClient,
): Credentials | undefined {
  if (!role) return caller;
  const plugins =
    role.sourceARN === ""
      ? []
      : [headersPlugin({ "x-amz-source-arn": role.sourceARN, "x-amz-source-account": accountOf(role.sourceARN) })];
  const region = sts.signingRegion ?? sts.region;
  const options = {
    params: { RoleArn: role.roleARN, RoleSessionName: `cloud-controller-manager-${Date.now()}` },
    ...(caller ? { masterCredentials: caller } : {}),
    clientConfig: {
      ...(region ? { region } : {}),
      ...(sts.endpoint ? { endpoint: sts.endpoint } : {}),
      requestHandler: {
        requestTimeout: sts.requestTimeoutMs,
        connectionTimeout: Math.min(sts.requestTimeoutMs, 10_000),
      },
    },
    clientPlugins: plugins as never[],
  };
  let provider: Promise<AwsCredentialIdentityProvider> | undefined;
  return async (props) => {
    provider ??= import("@aws-sdk/credential-providers").then((m) => m.fromTemporaryCredentials(options));
    return (await provider)(props);
  };
}

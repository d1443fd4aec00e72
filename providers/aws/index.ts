/**
 * `--cloud-provider=aws`: EC2 instances, VPC route-table routes, classic ELBs and NLBs, with upstream
 * cloud-provider-aws semantics where no instance metadata is needed. Credentials come from the AWS SDK's
 * default chain; endpoints from `[ServiceOverride]` sections or `AWS_ENDPOINT_URL*`.
 */
import type { ProviderFactory } from "../../src/cloud/provider.ts";
import { parseAwsConfig, type AwsConfig } from "./config.ts";

/** The provider's code, with the AWS SDK: loaded only when `--cloud-provider=aws` is the one chosen. */
export type AwsProviderModule = Pick<typeof import("./provider.ts"), "createAwsProvider">;

/**
 * `load` brings in `./provider.ts`. The executable compiles it as an entry point of its own, so that no
 * other provider's manager or thread parses the SDK (src/entries.ts); an import here would bundle it.
 */
export function awsProviderFactory(load: () => Promise<AwsProviderModule>): ProviderFactory<AwsConfig> {
  return {
    name: "aws",
    parseConfig: (text) => parseAwsConfig(text),
    create: async (config, context) => (await load()).createAwsProvider(config, context),
  };
}

export { parseAwsConfig } from "./config.ts";

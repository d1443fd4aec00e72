/**
 * `--cloud-provider=aws`: EC2 instances, VPC route-table routes, classic ELBs and NLBs, with upstream
 * cloud-provider-aws semantics where no instance metadata is needed. Credentials come from the AWS SDK's
 * default chain; endpoints from `[ServiceOverride]` sections or `AWS_ENDPOINT_URL*`.
 */
import type { ProviderFactory } from "../../src/cloud/provider.ts";
import { parseAwsConfig, type AwsConfig } from "./config.ts";

export const awsProviderFactory: ProviderFactory<AwsConfig> = {
  name: "aws",
  parseConfig: (text) => parseAwsConfig(text),
  create: async (config, context) => (await import("./provider.ts")).createAwsProvider(config, context),
};

export { parseAwsConfig } from "./config.ts";

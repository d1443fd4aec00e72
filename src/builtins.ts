/** What this binary holds: every provider and every controller, compiled in. */
import { controllerFactories } from "./app/controllers.ts";
import type { SubCommands } from "./cli/cli.ts";
import type { Builtins } from "./cli/run.ts";
import { createRegistry } from "./cloud/registry.ts";
import type { ProviderFactory } from "./cloud/provider.ts";
import { awsProviderFactory } from "../providers/aws/index.ts";
import { baremetalProviderFactory } from "../providers/baremetal/index.ts";
import { fakeProviderFactory } from "../providers/fake/index.ts";
import { vsphereProviderFactory } from "../providers/vsphere/index.ts";
import { fakeCloudCommand } from "./cli/commands/fake-cloud.ts";
import { manifestsCommand } from "./cli/commands/manifests.ts";
import { checkCommand } from "./cli/commands/check.ts";
import { installCommand } from "./cli/commands/install.ts";
import { importPoolsCommand } from "./cli/commands/import-pools.ts";
import { exportInventoryCommand } from "./cli/commands/export-inventory.ts";

export function providerFactories(): ProviderFactory<never>[] {
  return [
    awsProviderFactory,
    baremetalProviderFactory,
    fakeProviderFactory,
    vsphereProviderFactory,
  ] as ProviderFactory<never>[];
}

export function builtins(): Builtins {
  return { providers: createRegistry(providerFactories()), controllers: controllerFactories() };
}

export function subCommands(): SubCommands {
  return {
    "fake-cloud": fakeCloudCommand,
    manifests: manifestsCommand,
    check: checkCommand,
    install: installCommand,
    "import-pools": importPoolsCommand,
    "export-inventory": exportInventoryCommand,
  };
}

/** The commands beside `run`; the main thread only (they load the kubeconfig library and the AWS SDK). */
import type { SubCommands } from "./cli/cli.ts";
import { fakeCloudCommand } from "./cli/commands/fake-cloud.ts";
import { manifestsCommand } from "./cli/commands/manifests.ts";
import { checkCommand } from "./cli/commands/check.ts";
import { installCommand } from "./cli/commands/install.ts";
import { importPoolsCommand } from "./cli/commands/import-pools.ts";
import { exportInventoryCommand } from "./cli/commands/export-inventory.ts";

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

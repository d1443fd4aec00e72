/**
 * What this binary holds: every provider and every controller, compiled in. Controller threads import
 * this file, so it names nothing else (the commands are in sub-commands.ts: they load far more).
 */
import { controllerFactories } from "./app/controllers.ts";
import type { Builtins } from "./cli/run.ts";
import { createRegistry } from "./cloud/registry.ts";
import type { ProviderFactory } from "./cloud/provider.ts";
import { awsProviderFactory, type AwsProviderModule } from "../providers/aws/index.ts";
import { baremetalProviderFactory } from "../providers/baremetal/index.ts";
import { fakeProviderFactory } from "../providers/fake/index.ts";
import { vsphereProviderFactory } from "../providers/vsphere/index.ts";
import { entryPoint } from "./entries.ts";

export function providerFactories(): ProviderFactory<never>[] {
  return [
    awsProviderFactory(() => import(entryPoint("providers/aws/provider.ts")) as Promise<AwsProviderModule>),
    baremetalProviderFactory,
    fakeProviderFactory,
    vsphereProviderFactory,
  ] as ProviderFactory<never>[];
}

export function builtins(): Builtins {
  return { providers: createRegistry(providerFactories()), controllers: controllerFactories() };
}

import { expect, test } from "bun:test";
import { kubeletNode, loadBalancerService } from "../../../test/harness/fixtures.ts";
import { ServiceCache } from "./cache.ts";

const node = (name: string, providerID = `fake://${name}`) => kubeletNode(name, { uninitialized: false, providerID });

test("builtWith: the recorded node set, compared by names and providerIDs in any order", () => {
  const cache = new ServiceCache();
  const service = loadBalancerService("web", "ns");
  const [a, b] = [node("a"), node("b")];
  const built = [a, b];
  expect(cache.builtWith("ns/web", built)).toBe(false);
  cache.set("ns/web", service);
  expect(cache.builtWith("ns/web", built)).toBe(false);
  cache.recordNodes("ns/web", built);
  expect(cache.builtWith("ns/web", built)).toBe(true);
  expect(cache.builtWith("ns/web", [b, a])).toBe(true);
  expect(cache.builtWith("ns/web", [a])).toBe(false);
  expect(cache.builtWith("ns/web", [a, b, node("c")])).toBe(false);
  expect(cache.builtWith("ns/web", [a, node("b", "fake://replaced")])).toBe(false);
  expect(cache.builtWith("ns/other", built)).toBe(false);
});

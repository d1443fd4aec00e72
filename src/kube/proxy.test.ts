import { expect, test } from "bun:test";
import { proxyFor } from "./proxy.ts";

const PROXY = "http://proxy.corp:3128";

test.each([
  // [server, kubeconfig proxy-url, environment, expected]
  ["https://10.0.0.1:6443", undefined, {}, undefined],
  ["https://10.0.0.1:6443", "socks5://jump:1080", {}, "socks5://jump:1080"],
  ["https://10.0.0.1:6443", undefined, { HTTPS_PROXY: PROXY }, PROXY],
  ["https://10.0.0.1:6443", undefined, { https_proxy: PROXY }, PROXY],
  ["https://10.0.0.1:6443", undefined, { HTTP_PROXY: PROXY }, undefined],
  ["http://10.0.0.1:8080", undefined, { HTTP_PROXY: PROXY }, PROXY],
  ["https://127.0.0.1:6443", undefined, { HTTPS_PROXY: PROXY }, undefined],
  ["https://localhost:6443", undefined, { HTTPS_PROXY: PROXY }, undefined],
  ["https://[::1]:6443", undefined, { HTTPS_PROXY: PROXY }, undefined],
  ["https://10.0.0.1:6443", undefined, { HTTPS_PROXY: PROXY, NO_PROXY: "10.0.0.0/8" }, undefined],
  ["https://10.0.0.1:6443", undefined, { HTTPS_PROXY: PROXY, NO_PROXY: "10.1.0.0/16" }, PROXY],
  ["https://10.0.0.1:6443", undefined, { HTTPS_PROXY: PROXY, no_proxy: "10.0.0.1" }, undefined],
  ["https://api.k8s.corp:6443", undefined, { HTTPS_PROXY: PROXY, NO_PROXY: ".corp" }, undefined],
  ["https://api.k8s.corp:6443", undefined, { HTTPS_PROXY: PROXY, NO_PROXY: "k8s.corp" }, undefined],
  ["https://api.k8s.corp:6443", undefined, { HTTPS_PROXY: PROXY, NO_PROXY: "s.corp" }, PROXY],
  ["https://api.k8s.corp:6443", undefined, { HTTPS_PROXY: PROXY, NO_PROXY: "api.k8s.corp:443" }, PROXY],
  ["https://api.k8s.corp:6443", undefined, { HTTPS_PROXY: PROXY, NO_PROXY: "api.k8s.corp:6443" }, undefined],
  ["https://api.k8s.corp", undefined, { HTTPS_PROXY: PROXY, NO_PROXY: "api.k8s.corp:443" }, undefined],
  ["https://[fd00::1]:6443", undefined, { HTTPS_PROXY: PROXY, NO_PROXY: "[fd00::1]:6443" }, undefined],
  ["https://10.0.0.1:6443", undefined, { HTTPS_PROXY: PROXY, NO_PROXY: "*" }, undefined],
  ["https://[fd00::1]:6443", undefined, { HTTPS_PROXY: PROXY, NO_PROXY: "fd00::/64" }, undefined],
  ["https://[fd00::1]:6443", undefined, { HTTPS_PROXY: PROXY, NO_PROXY: "fd01::/64" }, PROXY],
  ["https://[fd00::1]:6443", undefined, { HTTPS_PROXY: PROXY, NO_PROXY: "fd00:0::0:1" }, undefined],
  ["https://127.1.2.3:6443", undefined, { HTTPS_PROXY: PROXY }, undefined],
] as const)("%s (proxy-url %s, %o) goes through %s", (server, kubeconfig, env, expected) => {
  expect(proxyFor(server, kubeconfig, env)).toBe(expected);
});

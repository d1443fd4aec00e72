/** Upstream-format input for the import tests: as MetalLB's docs and kube-vip's docs write them. */
export const METALLB_YAML = `apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata:
  name: cheap
  namespace: metallb-system
spec:
  addresses:
  - 192.168.10.0/24
  - fc00:f853:0ccd:e799::/124
---
apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata:
  name: expensive
  namespace: metallb-system
spec:
  addresses:
  - 42.176.25.64/30
  autoAssign: false
  avoidBuggyIPs: true
---
apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata:
  name: tenant
  namespace: metallb-system
spec:
  addresses:
  - 192.168.20.10-192.168.20.50
  serviceAllocation:
    priority: 50
    namespaces:
    - namespace-a
    namespaceSelectors:
    - matchLabels:
        foo: bar
---
apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata:
  name: pinned
  namespace: metallb-system
spec:
  addresses:
  - 192.168.30.0/28
  serviceAllocation:
    serviceSelectors:
    - matchExpressions:
      - {key: app, operator: In, values: [bar]}
---
apiVersion: metallb.io/v1beta1
kind: L2Advertisement
metadata:
  name: example
  namespace: metallb-system
spec:
  ipAddressPools:
  - cheap
  - expensive
`;

export const KUBE_VIP_YAML = `apiVersion: v1
kind: ConfigMap
metadata:
  name: kubevip
  namespace: kube-system
data:
  cidr-default: 192.168.0.200/29
  cidr-development: 192.168.0.210/29,192.168.0.220/29
  range-development: 192.168.0.230-192.168.0.234
  range-global: 192.168.1.220-192.168.1.230
  allow-share-development: "true"
`;

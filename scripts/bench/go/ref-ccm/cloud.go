package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/cloud-provider/fake"
	"k8s.io/klog/v2"
)

type cloudSettings struct {
	latency   time.Duration
	callsFile string
	endpoint  string
}

// The operations counted, named as the TypeScript fake cloud names its own.
var operations = []string{
	"InstanceMetadata", "InstanceExists", "InstanceShutdown",
	"GetLoadBalancer", "EnsureLoadBalancer", "UpdateLoadBalancer", "EnsureLoadBalancerDeleted",
	"ListRoutes", "CreateRoute", "DeleteRoute",
}

// countingCloud is upstream's fake.Cloud behind one latency per call, a load-balancer mutex and counters.
type countingCloud struct {
	*fake.Cloud
	latency time.Duration
	lbLock  sync.Mutex
	calls   map[string]*atomic.Int64
}

func newCountingCloud(s *cloudSettings) *countingCloud {
	c := &countingCloud{
		Cloud: &fake.Cloud{
			Provider:           "fake",
			EnableInstancesV2:  true,
			ExistsByProviderID: true,
			Zone:               cloudprovider.Zone{FailureDomain: "zone-a", Region: "region-1"},
			ExternalIP:         net.ParseIP("203.0.113.10"),
			RouteMap:           map[string]*fake.Route{},
			Balancers:          map[string]fake.Balancer{},
		},
		latency: s.latency,
		calls:   map[string]*atomic.Int64{},
	}
	for _, op := range operations {
		c.calls[op] = &atomic.Int64{}
	}
	if s.callsFile != "" {
		go c.writeCalls(s.callsFile)
	}
	return c
}

// call counts one cloud call and waits the simulated latency (outside any lock, as a real cloud would).
func (c *countingCloud) call(ctx context.Context, op string) {
	c.calls[op].Add(1)
	if c.latency <= 0 {
		return
	}
	select {
	case <-time.After(c.latency):
	case <-ctx.Done():
	}
}

func (c *countingCloud) writeCalls(path string) {
	for range time.Tick(100 * time.Millisecond) {
		counts := map[string]int64{}
		for op, n := range c.calls {
			if v := n.Load(); v > 0 {
				counts[op] = v
			}
		}
		data, _ := json.Marshal(counts)
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, data, 0o644); err != nil {
			klog.Errorf("writing fake cloud calls: %v", err)
			continue
		}
		_ = os.Rename(tmp, path)
	}
}

// Instances (v1) is withheld so that every instance question goes through the counted InstancesV2.
func (c *countingCloud) Instances() (cloudprovider.Instances, bool)       { return nil, false }
func (c *countingCloud) InstancesV2() (cloudprovider.InstancesV2, bool)   { return c, true }
func (c *countingCloud) LoadBalancer() (cloudprovider.LoadBalancer, bool) { return c, true }
func (c *countingCloud) Routes() (cloudprovider.Routes, bool)             { return c, true }

func (c *countingCloud) InstanceExists(ctx context.Context, node *v1.Node) (bool, error) {
	c.call(ctx, "InstanceExists")
	return c.Cloud.InstanceExists(ctx, node)
}

func (c *countingCloud) InstanceShutdown(ctx context.Context, node *v1.Node) (bool, error) {
	c.call(ctx, "InstanceShutdown")
	return c.Cloud.InstanceShutdown(ctx, node)
}

// InstanceMetadata answers as the TypeScript fake cloud's bench instances do: providerID fake://<name>,
// an InternalIP derived from the number at the end of the node's name, and the hostname.
func (c *countingCloud) InstanceMetadata(ctx context.Context, node *v1.Node) (*cloudprovider.InstanceMetadata, error) {
	c.call(ctx, "InstanceMetadata")
	return &cloudprovider.InstanceMetadata{
		ProviderID:    "fake://" + node.Name,
		InstanceType:  "fake.small",
		NodeAddresses: benchAddresses(node.Name),
		Zone:          "zone-a",
		Region:        "region-1",
	}, nil
}

// benchAddresses: "<prefix>-<i>" → InternalIP 10.(100+i/65536).(i/256%256).(i%256), then the hostname.
func benchAddresses(name string) []v1.NodeAddress {
	hostname := v1.NodeAddress{Type: v1.NodeHostName, Address: name}
	i, err := strconv.Atoi(name[strings.LastIndex(name, "-")+1:])
	if err != nil || i < 0 {
		return []v1.NodeAddress{hostname}
	}
	ip := fmt.Sprintf("10.%d.%d.%d", 100+i/65536, i/256%256, i%256)
	return []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: ip}, hostname}
}

func (c *countingCloud) GetLoadBalancer(ctx context.Context, clusterName string, service *v1.Service) (*v1.LoadBalancerStatus, bool, error) {
	c.call(ctx, "GetLoadBalancer")
	c.lbLock.Lock()
	defer c.lbLock.Unlock()
	return c.Cloud.GetLoadBalancer(ctx, clusterName, service)
}

func (c *countingCloud) EnsureLoadBalancer(ctx context.Context, clusterName string, service *v1.Service, nodes []*v1.Node) (*v1.LoadBalancerStatus, error) {
	c.call(ctx, "EnsureLoadBalancer")
	c.lbLock.Lock()
	defer c.lbLock.Unlock()
	return c.Cloud.EnsureLoadBalancer(ctx, clusterName, service, nodes)
}

func (c *countingCloud) UpdateLoadBalancer(ctx context.Context, clusterName string, service *v1.Service, nodes []*v1.Node) error {
	c.call(ctx, "UpdateLoadBalancer")
	c.lbLock.Lock()
	defer c.lbLock.Unlock()
	return c.Cloud.UpdateLoadBalancer(ctx, clusterName, service, nodes)
}

func (c *countingCloud) EnsureLoadBalancerDeleted(ctx context.Context, clusterName string, service *v1.Service) error {
	c.call(ctx, "EnsureLoadBalancerDeleted")
	c.lbLock.Lock()
	defer c.lbLock.Unlock()
	return c.Cloud.EnsureLoadBalancerDeleted(ctx, clusterName, service)
}

func (c *countingCloud) ListRoutes(ctx context.Context, clusterName string) ([]*cloudprovider.Route, error) {
	c.call(ctx, "ListRoutes")
	return c.Cloud.ListRoutes(ctx, clusterName)
}

func (c *countingCloud) CreateRoute(ctx context.Context, clusterName string, nameHint string, route *cloudprovider.Route) error {
	c.call(ctx, "CreateRoute")
	return c.Cloud.CreateRoute(ctx, clusterName, nameHint, route)
}

func (c *countingCloud) DeleteRoute(ctx context.Context, clusterName string, route *cloudprovider.Route) error {
	c.call(ctx, "DeleteRoute")
	return c.Cloud.DeleteRoute(ctx, clusterName, route)
}

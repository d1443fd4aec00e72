package main

// wireCloud is a cloudprovider.Interface over the TypeScript fake cloud's HTTP protocol (POST
// <endpoint>/v1/call/<operation>, JSON in and out, failures as {"error": {"code", "message"}}), so that the
// Go reference reaches the same out-of-process cloud as the TypeScript manager, one round-trip per call.
// Instance lookups are never batched here: upstream's controllers ask one node at a time.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	cloudprovider "k8s.io/cloud-provider"
)

const wireTimeout = 30 * time.Second

type wireCloud struct {
	base   string
	client *http.Client
}

func newWireCloud(endpoint string) *wireCloud {
	transport := http.DefaultTransport.(*http.Transport).Clone()
	// Go keeps two idle connections per host by default; the service and node workers would otherwise
	// open and close connections on every call.
	transport.MaxIdleConns = 512
	transport.MaxIdleConnsPerHost = 512
	return &wireCloud{base: strings.TrimRight(endpoint, "/"), client: &http.Client{Transport: transport, Timeout: wireTimeout}}
}

type wireError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *wireError) Error() string { return e.Code + ": " + e.Message }

// call posts one operation and decodes its answer into out.
func (c *wireCloud) call(ctx context.Context, operation string, body any, out any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/v1/call/"+operation, bytes.NewReader(data))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var failure struct {
		Error *wireError `json:"error"`
	}
	if err := json.Unmarshal(answer, &failure); err != nil {
		return fmt.Errorf("%s: HTTP %d: %w", operation, resp.StatusCode, err)
	}
	if failure.Error != nil {
		return failure.Error
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(answer, out)
}

func (c *wireCloud) Initialize(cloudprovider.ControllerClientBuilder, <-chan struct{}) {}
func (c *wireCloud) ProviderName() string                                              { return "fake" }
func (c *wireCloud) HasClusterID() bool                                                { return true }
func (c *wireCloud) Instances() (cloudprovider.Instances, bool)                        { return nil, false }
func (c *wireCloud) InstancesV2() (cloudprovider.InstancesV2, bool)                    { return c, true }
func (c *wireCloud) LoadBalancer() (cloudprovider.LoadBalancer, bool)                  { return c, true }
func (c *wireCloud) Routes() (cloudprovider.Routes, bool)                              { return c, true }
func (c *wireCloud) Zones() (cloudprovider.Zones, bool)                                { return nil, false }
func (c *wireCloud) Clusters() (cloudprovider.Clusters, bool)                          { return nil, false }

// --- instances ---

type nodeRef struct {
	Name       string `json:"name"`
	ProviderID string `json:"providerID,omitempty"`
}

type wireInstance struct {
	ProviderID   string            `json:"providerID"`
	InstanceType string            `json:"instanceType"`
	Zone         string            `json:"zone"`
	Region       string            `json:"region"`
	Addresses    []v1.NodeAddress  `json:"addresses"`
	Labels       map[string]string `json:"labels"`
	State        string            `json:"state"`
}

// describe asks for one node; nil means the cloud has no such instance or it is terminated.
func (c *wireCloud) describe(ctx context.Context, operation string, node *v1.Node) (*wireInstance, error) {
	var answer struct {
		Instances []*wireInstance `json:"instances"`
	}
	ref := nodeRef{Name: node.Name, ProviderID: node.Spec.ProviderID}
	if err := c.call(ctx, operation, map[string]any{"nodes": []nodeRef{ref}}, &answer); err != nil {
		return nil, err
	}
	if len(answer.Instances) == 0 || answer.Instances[0] == nil || answer.Instances[0].State == "terminated" {
		return nil, nil
	}
	return answer.Instances[0], nil
}

func (c *wireCloud) InstanceExists(ctx context.Context, node *v1.Node) (bool, error) {
	found, err := c.describe(ctx, "InstanceExists", node)
	return found != nil, err
}

func (c *wireCloud) InstanceShutdown(ctx context.Context, node *v1.Node) (bool, error) {
	found, err := c.describe(ctx, "InstanceShutdown", node)
	if err != nil {
		return false, err
	}
	if found == nil {
		return false, cloudprovider.InstanceNotFound
	}
	return found.State == "stopped", nil
}

func (c *wireCloud) InstanceMetadata(ctx context.Context, node *v1.Node) (*cloudprovider.InstanceMetadata, error) {
	found, err := c.describe(ctx, "InstanceMetadata", node)
	if err != nil {
		return nil, err
	}
	if found == nil {
		return nil, cloudprovider.InstanceNotFound
	}
	return &cloudprovider.InstanceMetadata{
		ProviderID:       found.ProviderID,
		InstanceType:     found.InstanceType,
		NodeAddresses:    found.Addresses,
		Zone:             found.Zone,
		Region:           found.Region,
		AdditionalLabels: found.Labels,
	}, nil
}

// --- load balancers ---

type lbPort struct {
	Name     string `json:"name,omitempty"`
	Protocol string `json:"protocol"`
	Port     int32  `json:"port"`
	NodePort int32  `json:"nodePort,omitempty"`
}

type lbRequest struct {
	Name         string            `json:"name"`
	ClusterName  string            `json:"clusterName"`
	Service      string            `json:"service"`
	ServiceUID   string            `json:"serviceUID"`
	Ports        []lbPort          `json:"ports"`
	IPFamilies   []string          `json:"ipFamilies"`
	Annotations  map[string]string `json:"annotations"`
	SourceRanges []string          `json:"sourceRanges"`
	Nodes        []string          `json:"nodes"`
}

type wireLoadBalancer struct {
	Ingress []struct {
		IP       string `json:"ip,omitempty"`
		Hostname string `json:"hostname,omitempty"`
	} `json:"ingress"`
}

type lbAnswer struct {
	LoadBalancer *wireLoadBalancer `json:"loadBalancer"`
}

func lbRequestOf(clusterName string, service *v1.Service, nodes []*v1.Node) lbRequest {
	req := lbRequest{
		Name:         cloudprovider.DefaultLoadBalancerName(service),
		ClusterName:  clusterName,
		Service:      service.Namespace + "/" + service.Name,
		ServiceUID:   string(service.UID),
		Ports:        []lbPort{},
		IPFamilies:   []string{},
		Annotations:  map[string]string{},
		SourceRanges: []string{},
		Nodes:        []string{},
	}
	for _, p := range service.Spec.Ports {
		req.Ports = append(req.Ports, lbPort{Name: p.Name, Protocol: string(p.Protocol), Port: p.Port, NodePort: p.NodePort})
	}
	for _, f := range service.Spec.IPFamilies {
		req.IPFamilies = append(req.IPFamilies, string(f))
	}
	for k, v := range service.Annotations {
		req.Annotations[k] = v
	}
	req.SourceRanges = append(req.SourceRanges, service.Spec.LoadBalancerSourceRanges...)
	for _, n := range nodes {
		req.Nodes = append(req.Nodes, n.Name)
	}
	sort.Strings(req.Nodes)
	return req
}

func statusOf(lb *wireLoadBalancer) *v1.LoadBalancerStatus {
	status := &v1.LoadBalancerStatus{}
	vip := v1.LoadBalancerIPModeVIP
	for _, in := range lb.Ingress {
		if in.IP != "" {
			status.Ingress = append(status.Ingress, v1.LoadBalancerIngress{IP: in.IP, IPMode: &vip})
		} else {
			status.Ingress = append(status.Ingress, v1.LoadBalancerIngress{Hostname: in.Hostname})
		}
	}
	return status
}

func (c *wireCloud) GetLoadBalancerName(_ context.Context, _ string, service *v1.Service) string {
	return cloudprovider.DefaultLoadBalancerName(service)
}

func (c *wireCloud) GetLoadBalancer(ctx context.Context, _ string, service *v1.Service) (*v1.LoadBalancerStatus, bool, error) {
	var answer lbAnswer
	body := map[string]string{"name": cloudprovider.DefaultLoadBalancerName(service)}
	if err := c.call(ctx, "GetLoadBalancer", body, &answer); err != nil {
		return nil, false, err
	}
	if answer.LoadBalancer == nil {
		return nil, false, nil
	}
	return statusOf(answer.LoadBalancer), true, nil
}

func (c *wireCloud) EnsureLoadBalancer(ctx context.Context, clusterName string, service *v1.Service, nodes []*v1.Node) (*v1.LoadBalancerStatus, error) {
	var answer lbAnswer
	if err := c.call(ctx, "EnsureLoadBalancer", lbRequestOf(clusterName, service, nodes), &answer); err != nil {
		return nil, err
	}
	if answer.LoadBalancer == nil {
		return nil, errors.New("EnsureLoadBalancer: the cloud answered without a load balancer")
	}
	return statusOf(answer.LoadBalancer), nil
}

func (c *wireCloud) UpdateLoadBalancer(ctx context.Context, clusterName string, service *v1.Service, nodes []*v1.Node) error {
	return c.call(ctx, "UpdateLoadBalancer", lbRequestOf(clusterName, service, nodes), nil)
}

func (c *wireCloud) EnsureLoadBalancerDeleted(ctx context.Context, _ string, service *v1.Service) error {
	return c.call(ctx, "EnsureLoadBalancerDeleted", map[string]string{"name": cloudprovider.DefaultLoadBalancerName(service)}, nil)
}

// --- routes ---

type wireRoute struct {
	Name            string `json:"name"`
	TargetNode      string `json:"targetNode"`
	DestinationCIDR string `json:"destinationCIDR"`
	Blackhole       bool   `json:"blackhole"`
}

func (c *wireCloud) ListRoutes(ctx context.Context, clusterName string) ([]*cloudprovider.Route, error) {
	var answer struct {
		Routes []wireRoute `json:"routes"`
	}
	if err := c.call(ctx, "ListRoutes", map[string]string{"clusterName": clusterName}, &answer); err != nil {
		return nil, err
	}
	routes := make([]*cloudprovider.Route, 0, len(answer.Routes))
	for _, r := range answer.Routes {
		routes = append(routes, &cloudprovider.Route{
			Name: r.Name, TargetNode: types.NodeName(r.TargetNode), DestinationCIDR: r.DestinationCIDR, Blackhole: r.Blackhole,
		})
	}
	return routes, nil
}

func (c *wireCloud) CreateRoute(ctx context.Context, clusterName string, nameHint string, route *cloudprovider.Route) error {
	body := map[string]string{
		"clusterName": clusterName, "nameHint": nameHint,
		"targetNode": string(route.TargetNode), "destinationCIDR": route.DestinationCIDR,
	}
	return c.call(ctx, "CreateRoute", body, nil)
}

func (c *wireCloud) DeleteRoute(ctx context.Context, clusterName string, route *cloudprovider.Route) error {
	return c.call(ctx, "DeleteRoute", map[string]string{"clusterName": clusterName, "name": route.Name}, nil)
}

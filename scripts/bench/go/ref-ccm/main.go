// The reference cloud-controller-manager for side-by-side benchmarks: upstream k8s.io/cloud-provider's
// app with its in-memory fake cloud, built from the Go module proxy at the same Kubernetes release as the
// test control plane. --fake-latency delays every cloud call, like the TypeScript fake cloud's latency.
package main

import (
	"context"
	"io"
	"net"
	"os"
	"time"

	"github.com/spf13/pflag"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/cloud-provider/app"
	"k8s.io/cloud-provider/app/config"
	"k8s.io/cloud-provider/fake"
	"k8s.io/cloud-provider/names"
	"k8s.io/cloud-provider/options"
	"k8s.io/component-base/cli"
	cliflag "k8s.io/component-base/cli/flag"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	"k8s.io/klog/v2"
)

var latency time.Duration

func newCloud() *fake.Cloud {
	return &fake.Cloud{
		Provider:           "fake",
		EnableInstancesV2:  true,
		ExistsByProviderID: true,
		Zone:               cloudprovider.Zone{FailureDomain: "zone-a", Region: "region-1"},
		ExternalIP:         net.ParseIP("203.0.113.10"),
		RouteMap:           map[string]*fake.Route{},
		RequestDelay:       latency,
		OverrideInstanceMetadata: func(_ context.Context, n *v1.Node) (*cloudprovider.InstanceMetadata, error) {
			time.Sleep(latency)
			return &cloudprovider.InstanceMetadata{ProviderID: "fake://" + n.Name, InstanceType: "fake.small",
				NodeAddresses: []v1.NodeAddress{{Type: v1.NodeHostName, Address: n.Name}},
				Zone:          "zone-a", Region: "region-1"}, nil
		},
	}
}

func main() {
	fs := cliflag.NamedFlagSets{}
	fakeFlags := fs.FlagSet("fake cloud")
	fakeFlags.DurationVar(&latency, "fake-latency", 0, "Delay every call to the in-memory fake cloud by this much.")
	pflag.CommandLine.AddFlagSet(fakeFlags)
	cloudprovider.RegisterCloudProvider("fake", func(io.Reader) (cloudprovider.Interface, error) { return newCloud(), nil })
	o, err := options.NewCloudControllerManagerOptions()
	if err != nil {
		klog.Fatalf("options: %v", err)
	}
	cmd := app.NewCloudControllerManagerCommand(o, func(c *config.CompletedConfig) cloudprovider.Interface {
		cp := c.ComponentConfig.KubeCloudShared.CloudProvider
		cloud, err := cloudprovider.InitCloudProvider(cp.Name, cp.CloudConfigFile)
		if err != nil || cloud == nil {
			klog.Fatalf("cloud %q: %v", cp.Name, err)
		}
		return cloud
	}, app.DefaultInitFuncConstructors, names.CCMControllerAliases(), fs, wait.NeverStop)
	os.Exit(cli.Run(cmd))
}

// The reference cloud-controller-manager for side-by-side benchmarks: upstream k8s.io/cloud-provider's
// app, built from the Go module proxy at the same Kubernetes release as the test control plane.
//
// With --fake-cloud-endpoint it talks to the TypeScript fake cloud served by `cloud-controller-manager
// fake-cloud` over that cloud's HTTP protocol (wire.go), the same cloud and the same wire as the TypeScript
// manager. Without it, it carries upstream's in-memory fake (k8s.io/cloud-provider/fake), wrapped
// (cloud.go) to behave like the TypeScript fake: --fake-latency delays every cloud call once (the fake's
// own RequestDelay would delay EnsureLoadBalancer twice, through its internal GetZone), load-balancer
// calls hold a mutex (the fake writes its map without one, so concurrent service syncs would crash it),
// and every call is counted per operation and written to --fake-calls-file ten times a second.
package main

import (
	"io"
	"os"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/util/wait"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/cloud-provider/app"
	"k8s.io/cloud-provider/app/config"
	"k8s.io/cloud-provider/names"
	"k8s.io/cloud-provider/options"
	"k8s.io/component-base/cli"
	cliflag "k8s.io/component-base/cli/flag"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	"k8s.io/klog/v2"
)

func main() {
	settings := &cloudSettings{}
	fs := cliflag.NamedFlagSets{}
	fakeFlags := fs.FlagSet("fake cloud")
	fakeFlags.DurationVar(&settings.latency, "fake-latency", 0, "Delay every call to the in-memory fake cloud by this much.")
	fakeFlags.StringVar(&settings.callsFile, "fake-calls-file", "",
		"Write the fake cloud's call counters (JSON, by operation) to this file ten times a second.")
	fakeFlags.StringVar(&settings.endpoint, "fake-cloud-endpoint", "",
		"Talk to the fake cloud served at this URL (cloud-controller-manager fake-cloud) instead of the in-process one.")
	pflag.CommandLine.AddFlagSet(fakeFlags)
	cloudprovider.RegisterCloudProvider("fake", func(io.Reader) (cloudprovider.Interface, error) {
		if settings.endpoint != "" {
			return newWireCloud(settings.endpoint), nil
		}
		return newCountingCloud(settings), nil
	})
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

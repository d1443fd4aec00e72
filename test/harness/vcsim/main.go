// Command vcsim-harness serves govmomi's vCenter simulator for the vSphere provider's tests: a VPX
// inventory whose VMs carry guest info (host name, addresses on two networks), behind a TLS front that
// counts requests and can play "unreachable", plus a plain-HTTP control endpoint for power, destroy and
// session expiry. It prints one JSON line describing the inventory once it serves.
package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"flag"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/vmware/govmomi"
	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/session"
	"github.com/vmware/govmomi/simulator"
	_ "github.com/vmware/govmomi/vapi/simulator"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"
)

type vmInfo struct {
	Name         string `json:"name"`
	UUID         string `json:"uuid"`
	InstanceUUID string `json:"instanceUuid"`
	Ref          string `json:"ref"`
	Host         string `json:"host"`
	Cluster      string `json:"cluster"`
	Datacenter   string `json:"datacenter"`
	Folder       string `json:"folder"`
	ResourcePool string `json:"resourcePool"`
	HostName     string `json:"hostName"`
	IP           string `json:"ip"`
	ExternalIP   string `json:"externalIp"`
	NumCPU       int32  `json:"numCpu"`
	MemoryMB     int32  `json:"memoryMB"`
}

type ready struct {
	URL      string   `json:"url"`
	Control  string   `json:"control"`
	CAFile   string   `json:"caFile"`
	Username string   `json:"username"`
	Password string   `json:"password"`
	VMs      []vmInfo `json:"vms"`
}

type front struct {
	backend *httputil.ReverseProxy
	down    atomic.Bool
	mu      sync.Mutex
	calls   map[string]int
	// REST session ids seen, and those expired: vapi/simulator's own sessions cannot be ended from
	// outside, so the front answers 401 for an expired id, as vCenter does.
	restSeen    map[string]bool
	restExpired map[string]bool
}

const restSessionHeader = "vmware-api-session-id"

// restSessionExpired records the request's REST session id; true when that session was expired.
func (f *front) restSessionExpired(r *http.Request) bool {
	id := r.Header.Get(restSessionHeader)
	if id == "" {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.restSeen[id] = true
	return f.restExpired[id]
}

func (f *front) expireRestSessions() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for id := range f.restSeen {
		f.restExpired[id] = true
	}
}

var soapMethod = regexp.MustCompile(`<(?:\w+:)?Body[^>]*>\s*<(?:\w+:)?(\w+)`)

func (f *front) count(r *http.Request) {
	key := r.Method + " " + r.URL.Path
	if r.URL.Path == "/sdk" && r.Body != nil {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		if m := soapMethod.FindSubmatch(body); m != nil {
			key = "soap " + string(m[1])
		}
	}
	f.mu.Lock()
	f.calls[key]++
	f.mu.Unlock()
}

func (f *front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if f.down.Load() {
		if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
			_ = conn.Close()
		}
		return
	}
	f.count(r)
	if f.restSessionExpired(r) {
		http.Error(w, `{"type":"com.vmware.vapi.std.errors.unauthenticated"}`, http.StatusUnauthorized)
		return
	}
	f.backend.ServeHTTP(w, r)
}

func main() {
	datacenters := flag.Int("datacenters", 1, "datacenters")
	clusters := flag.Int("clusters", 1, "clusters per datacenter")
	hosts := flag.Int("hosts", 2, "hosts per cluster")
	vms := flag.Int("vms", 4, "VMs per cluster")
	dir := flag.String("dir", os.TempDir(), "where the CA file is written")
	user := flag.String("username", "administrator@vsphere.local", "the one accepted user")
	pass := flag.String("password", "vcsim-password", "its password")
	flag.Parse()

	model := simulator.VPX()
	model.Datacenter, model.Cluster, model.ClusterHost, model.Machine = *datacenters, *clusters, *hosts, *vms
	model.Host, model.Portgroup, model.Autostart = 0, 0, true
	if err := model.Create(); err != nil {
		log.Fatal(err)
	}
	defer model.Remove()
	model.Service.RegisterEndpoints = true
	model.Service.Listen = &url.URL{Host: "127.0.0.1:0", User: url.UserPassword(*user, *pass)}
	infos := fillGuests(model.Map())
	sim := model.Service.NewServer()
	defer sim.Close()

	f := &front{backend: httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: sim.URL.Host}), calls: map[string]int{}, restSeen: map[string]bool{}, restExpired: map[string]bool{}}
	caFile, cert := selfSigned(*dir)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}})
	if err != nil {
		log.Fatal(err)
	}
	go func() { _ = http.Serve(ln, f) }()
	frontURL := &url.URL{Scheme: "https", Host: ln.Addr().String(), Path: "/sdk"}

	ctl := &control{front: f, model: model, sdk: &url.URL{Scheme: "http", Host: sim.URL.Host, Path: "/sdk", User: url.UserPassword(*user, *pass)}}
	cln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	go func() { _ = http.Serve(cln, ctl.mux()) }()

	line, _ := json.Marshal(ready{URL: frontURL.String(), Control: "http://" + cln.Addr().String(), CAFile: caFile, Username: *user, Password: *pass, VMs: infos})
	fmt.Println(string(line))

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	<-stop
}

// fillGuests gives every VM what VMware Tools would report: a host name and addresses on two networks,
// varied CPU and memory, and a guest OS.
func fillGuests(registry *simulator.Registry) []vmInfo {
	var out []vmInfo
	for i, entity := range registry.All("VirtualMachine") {
		vm := entity.(*simulator.VirtualMachine)
		n := i + 1
		host := strings.ToLower(strings.ReplaceAll(vm.Name, "_", "-"))
		ip := fmt.Sprintf("10.20.%d.%d", n/250, n%250+2)
		ext := fmt.Sprintf("192.0.2.%d", n%250+2)
		cpu, mem := int32(2+2*(i%2)), int32(4096*(1+i%2))
		vm.Config.Hardware.NumCPU, vm.Config.Hardware.MemoryMB = cpu, mem
		vm.Summary.Config.NumCpu, vm.Summary.Config.MemorySizeMB = cpu, mem
		vm.Config.GuestId, vm.Summary.Config.GuestId = "ubuntu64Guest", "ubuntu64Guest"
		vm.Guest.HostName, vm.Guest.IpAddress = host, ip
		vm.Guest.ToolsRunningStatus = string(types.VirtualMachineToolsRunningStatusGuestToolsRunning)
		vm.Guest.Net = []types.GuestNicInfo{
			{Network: "VM Network", IpAddress: []string{ip, fmt.Sprintf("fd00:10:20::%x", n), "fe80::250:56ff:fe00:1"}, Connected: true, DeviceConfigId: 4000, MacAddress: fmt.Sprintf("00:50:56:00:%02x:%02x", n/256, n%256)},
			{Network: "External Network", IpAddress: []string{ext}, Connected: true, DeviceConfigId: 4001, MacAddress: fmt.Sprintf("00:50:56:01:%02x:%02x", n/256, n%256)},
		}
		vm.Summary.Guest.HostName, vm.Summary.Guest.IpAddress = host, ip
		vm.Summary.Guest.ToolsRunningStatus = vm.Guest.ToolsRunningStatus
		out = append(out, describe(registry, vm, host, ip, ext))
	}
	return out
}

func describe(registry *simulator.Registry, vm *simulator.VirtualMachine, host, ip, ext string) vmInfo {
	hostRef := vm.Runtime.Host
	h := registry.Get(*hostRef).(*simulator.HostSystem)
	cluster := *h.Parent
	dc := ancestor(registry, cluster, "Datacenter")
	return vmInfo{
		Name: vm.Name, UUID: strings.ToLower(vm.Config.Uuid), InstanceUUID: strings.ToLower(vm.Config.InstanceUuid),
		Ref: vm.Self.Value, Host: hostRef.Value, Cluster: cluster.Value, Datacenter: dc,
		Folder: vm.Parent.Value, ResourcePool: vm.ResourcePool.Value,
		HostName: host, IP: ip, ExternalIP: ext, NumCPU: vm.Config.Hardware.NumCPU, MemoryMB: vm.Config.Hardware.MemoryMB,
	}
}

func ancestor(registry *simulator.Registry, ref types.ManagedObjectReference, kind string) string {
	for {
		if ref.Type == kind {
			return ref.Value
		}
		entity, ok := registry.Get(ref).(mo.Entity)
		if !ok || entity.Entity().Parent == nil {
			return ""
		}
		ref = *entity.Entity().Parent
	}
}

func selfSigned(dir string) (string, tls.Certificate) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: "vcsim"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		log.Fatal(err)
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyDER, _ := x509.MarshalECPrivateKey(key)
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
	file := filepath.Join(dir, fmt.Sprintf("vcsim-ca-%d.pem", os.Getpid()))
	if err := os.WriteFile(file, certPEM, 0o644); err != nil {
		log.Fatal(err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		log.Fatal(err)
	}
	return file, cert
}

type control struct {
	front *front
	model *simulator.Model
	sdk   *url.URL
}

func (c *control) mux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /power", c.vmAction(func(ctx context.Context, vm *object.VirtualMachine, r *http.Request) error {
		var task *object.Task
		var err error
		if r.URL.Query().Get("state") == "on" {
			task, err = vm.PowerOn(ctx)
		} else {
			task, err = vm.PowerOff(ctx)
		}
		if err != nil {
			return err
		}
		return task.Wait(ctx)
	}))
	mux.HandleFunc("POST /destroy", c.vmAction(func(ctx context.Context, vm *object.VirtualMachine, _ *http.Request) error {
		// vCenter destroys only powered-off VMs, so power off first, as an operator would.
		if state, err := vm.PowerState(ctx); err == nil && state == types.VirtualMachinePowerStatePoweredOn {
			if task, err := vm.PowerOff(ctx); err != nil || task.Wait(ctx) != nil {
				return fmt.Errorf("power off before destroy failed: %v", err)
			}
		}
		task, err := vm.Destroy(ctx)
		if err != nil {
			return err
		}
		return task.Wait(ctx)
	}))
	// extra-config sets one extraConfig key (as CAPV's guestinfo.metadata), by ReconfigVM_Task as vCenter would.
	mux.HandleFunc("POST /extra-config", c.vmAction(func(ctx context.Context, vm *object.VirtualMachine, r *http.Request) error {
		option := &types.OptionValue{Key: r.URL.Query().Get("key"), Value: r.URL.Query().Get("value")}
		task, err := vm.Reconfigure(ctx, types.VirtualMachineConfigSpec{ExtraConfig: []types.BaseOptionValue{option}})
		if err != nil {
			return err
		}
		return task.Wait(ctx)
	}))
	mux.HandleFunc("POST /expire-sessions", c.withClient(c.expireSessions))
	mux.HandleFunc("POST /down", func(w http.ResponseWriter, r *http.Request) {
		c.front.down.Store(r.URL.Query().Get("on") != "false")
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET /calls", func(w http.ResponseWriter, _ *http.Request) {
		c.front.mu.Lock()
		defer c.front.mu.Unlock()
		_ = json.NewEncoder(w).Encode(c.front.calls)
	})
	mux.HandleFunc("POST /calls/reset", func(w http.ResponseWriter, _ *http.Request) {
		c.front.mu.Lock()
		c.front.calls = map[string]int{}
		c.front.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
	return mux
}

// withClient runs handle with a client logged in to the simulator (not through the front).
func (c *control) withClient(handle func(context.Context, *govmomi.Client, http.ResponseWriter, *http.Request)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		client, err := govmomi.NewClient(r.Context(), c.sdk, true)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer func() { _ = client.Logout(context.Background()) }()
		handle(r.Context(), client, w, r)
	}
}

func (c *control) vmAction(act func(context.Context, *object.VirtualMachine, *http.Request) error) http.HandlerFunc {
	return c.withClient(func(ctx context.Context, client *govmomi.Client, w http.ResponseWriter, r *http.Request) {
		ref, err := object.NewSearchIndex(client.Client).FindByUuid(ctx, nil, r.URL.Query().Get("uuid"), true, nil)
		if err != nil || ref == nil {
			http.Error(w, fmt.Sprintf("no VM with BIOS UUID %q (%v)", r.URL.Query().Get("uuid"), err), http.StatusNotFound)
			return
		}
		if err := act(ctx, object.NewVirtualMachine(client.Client, ref.Reference()), r); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
}

// expireSessions terminates every session but its own, as a vCenter restart or idle timeout would.
func (c *control) expireSessions(ctx context.Context, client *govmomi.Client, w http.ResponseWriter, _ *http.Request) {
	var sm mo.SessionManager
	if err := client.RetrieveOne(ctx, *client.ServiceContent.SessionManager, []string{"sessionList", "currentSession"}, &sm); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	var ids []string
	for _, s := range sm.SessionList {
		if sm.CurrentSession == nil || s.Key != sm.CurrentSession.Key {
			ids = append(ids, s.Key)
		}
	}
	if len(ids) > 0 {
		if err := session.NewManager(client.Client).TerminateSession(ctx, ids); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
	}
	c.front.expireRestSessions()
	_, _ = fmt.Fprintf(w, "%d\n", len(ids))
}

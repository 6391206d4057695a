package localrt

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	compute "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	filestore "cloud.google.com/go/filestore/apiv1"
	"cloud.google.com/go/filestore/apiv1/filestorepb"
	"google.golang.org/api/option"
	sn "google.golang.org/api/servicenetworking/v1"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp/lustre"
)

const (
	project = "local-rt"
	region  = "us-central1"
	zone    = "us-central1-a"
	// subnetCIDR is the range of every test's subnet "sub" on network "vpc".
	subnetCIDR = "10.128.0.0/20"
)

// cloud is the emulator as a user sees it: official clients at its URL.
type cloud struct {
	t   *testing.T
	ctx context.Context
	url string
	env *emulatortest.Env // nil when the emulator runs in another process

	instances *compute.InstancesClient
	networks  *compute.NetworksClient
	subnets   *compute.SubnetworksClient
	addresses *compute.GlobalAddressesClient
	sn        *sn.APIService
	filestore *filestore.CloudFilestoreManagerClient
	lustre    *lustre.Client
}

// startCloud runs an in-process emulator with the local runtime attached (skipping where it cannot run) and
// checks, once the test is over and the emulator closed, that nothing of the runtime is left on the machine.
func startCloud(t *testing.T) *cloud {
	t.Helper()
	env := emulatortest.Start(t, emulatortest.WithLocalRuntime())
	rc, _, ok := env.Emulator.LocalRuntimeConfig()
	if !ok || env.Runtime == nil {
		t.Fatal("emulatortest.WithLocalRuntime started no runtime")
	}
	c := newCloud(t, env.URL)
	c.env = env
	t.Cleanup(func() {
		// Cleanups run last-registered first: this one before emulatortest's own Close.
		seen := snapshotHosts(env)
		env.Close()
		assertNothingLeft(t, rc.Prefix, rc.StateDir, seen)
	})
	return c
}

func newCloud(t *testing.T, url string) *cloud {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	c := &cloud{t: t, ctx: ctx, url: url}
	opts := []option.ClientOption{option.WithEndpoint(url + "/"), option.WithoutAuthentication()}
	var err error
	must := func(what string) {
		if err != nil {
			t.Fatalf("%s client: %v", what, err)
		}
	}
	c.instances, err = compute.NewInstancesRESTClient(ctx, opts...)
	must("instances")
	c.networks, err = compute.NewNetworksRESTClient(ctx, opts...)
	must("networks")
	c.subnets, err = compute.NewSubnetworksRESTClient(ctx, opts...)
	must("subnetworks")
	c.addresses, err = compute.NewGlobalAddressesRESTClient(ctx, opts...)
	must("globalAddresses")
	noAuth := option.WithoutAuthentication()
	c.sn, err = sn.NewService(ctx, option.WithEndpoint(url+"/servicenetworking/"), noAuth)
	must("servicenetworking")
	c.filestore, err = filestore.NewCloudFilestoreManagerRESTClient(ctx, option.WithEndpoint(url+"/filestore/"), noAuth)
	must("filestore")
	c.lustre, err = lustre.NewClient(ctx, option.WithEndpoint(url+"/lustre/"), noAuth)
	must("lustre")
	c.lustre.PollInitial = 20 * time.Millisecond
	t.Cleanup(func() {
		c.instances.Close()
		c.networks.Close()
		c.subnets.Close()
		c.addresses.Close()
		c.filestore.Close()
	})
	return c
}

// network creates VPC "vpc" with subnet "sub" (subnetCIDR) in the test region.
func (c *cloud) network() {
	c.t.Helper()
	op, err := c.networks.Insert(c.ctx, &computepb.InsertNetworkRequest{Project: project, NetworkResource: &computepb.Network{
		Name: proto.String("vpc"), AutoCreateSubnetworks: proto.Bool(false)}})
	if err == nil {
		err = op.Wait(c.ctx)
	}
	if err != nil {
		c.t.Fatalf("creating network: %v", err)
	}
	op, err = c.subnets.Insert(c.ctx, &computepb.InsertSubnetworkRequest{Project: project, Region: region, SubnetworkResource: &computepb.Subnetwork{
		Name: proto.String("sub"), Network: proto.String("global/networks/vpc"), IpCidrRange: proto.String(subnetCIDR)}})
	if err == nil {
		err = op.Wait(c.ctx)
	}
	if err != nil {
		c.t.Fatalf("creating subnet: %v", err)
	}
}

// privateServiceAccess reserves 10.20.0.0/20 on "vpc" and connects it to Service Networking, as the
// Filestore and Lustre APIs require.
func (c *cloud) privateServiceAccess() {
	c.t.Helper()
	op, err := c.addresses.Insert(c.ctx, &computepb.InsertGlobalAddressRequest{Project: project, AddressResource: &computepb.Address{
		Name: proto.String("psa"), AddressType: proto.String("INTERNAL"), Purpose: proto.String("VPC_PEERING"),
		Address: proto.String("10.20.0.0"), PrefixLength: proto.Int32(20), Network: proto.String("projects/" + project + "/global/networks/vpc"),
	}})
	if err == nil {
		err = op.Wait(c.ctx)
	}
	if err != nil {
		c.t.Fatalf("reserving the PSA range: %v", err)
	}
	network := "projects/" + emulator.ProjectNumber(project) + "/global/networks/vpc"
	snOp, err := c.sn.Services.Connections.Create("services/servicenetworking.googleapis.com", &sn.Connection{
		Network: network, ReservedPeeringRanges: []string{"psa"}}).Context(c.ctx).Do()
	for err == nil && !snOp.Done {
		time.Sleep(10 * time.Millisecond)
		snOp, err = c.sn.Operations.Get(snOp.Name).Context(c.ctx).Do()
	}
	if err == nil && snOp.Error != nil {
		err = fmt.Errorf("%s", snOp.Error.Message)
	}
	if err != nil {
		c.t.Fatalf("connecting private service access: %v", err)
	}
}

// createFilestore creates a Filestore instance with one share and returns its name and IP.
func (c *cloud) createFilestore(id, share string) (name, ip string) {
	c.t.Helper()
	op, err := c.filestore.CreateInstance(c.ctx, &filestorepb.CreateInstanceRequest{
		Parent: "projects/" + project + "/locations/" + zone, InstanceId: id,
		Instance: &filestorepb.Instance{
			Tier:       filestorepb.Instance_BASIC_HDD,
			FileShares: []*filestorepb.FileShareConfig{{Name: share, CapacityGb: 1024}},
			Networks: []*filestorepb.NetworkConfig{{Network: "vpc", Modes: []filestorepb.NetworkConfig_AddressMode{filestorepb.NetworkConfig_MODE_IPV4},
				ConnectMode: filestorepb.NetworkConfig_PRIVATE_SERVICE_ACCESS}},
		}})
	if err != nil {
		c.t.Fatalf("creating Filestore %s: %v", id, err)
	}
	inst, err := op.Wait(c.ctx)
	if err != nil {
		c.t.Fatalf("creating Filestore %s: %v", id, err)
	}
	if inst.GetState() != filestorepb.Instance_READY || len(inst.GetNetworks()) != 1 || len(inst.GetNetworks()[0].GetIpAddresses()) == 0 {
		c.t.Fatalf("Filestore %s after create: %v", id, inst)
	}
	return inst.GetName(), inst.GetNetworks()[0].GetIpAddresses()[0]
}

// createLustre creates a Managed Lustre instance and returns its mount point (IP@tcp:/fs).
func (c *cloud) createLustre(id, fs string) string {
	c.t.Helper()
	op, err := c.lustre.CreateInstance(c.ctx, "projects/"+project+"/locations/"+zone, id, &lustre.Instance{
		Filesystem: fs, CapacityGib: 18000, PerUnitStorageThroughput: 500, Network: "projects/" + project + "/global/networks/vpc"})
	if err != nil {
		c.t.Fatalf("creating Lustre %s: %v", id, err)
	}
	inst, err := c.lustre.WaitOperation(c.ctx, op)
	if err != nil {
		c.t.Fatalf("creating Lustre %s: %v", id, err)
	}
	if inst.State != lustre.StateActive || inst.MountPoint == "" {
		c.t.Fatalf("Lustre %s after create: %+v", id, inst)
	}
	return inst.MountPoint
}

// createVM creates an instance on "sub" whose startup script is script, with guest attributes enabled.
func (c *cloud) createVM(name, script string) *computepb.Instance {
	c.t.Helper()
	op, err := c.instances.Insert(c.ctx, &computepb.InsertInstanceRequest{Project: project, Zone: zone, InstanceResource: &computepb.Instance{
		Name:        proto.String(name),
		MachineType: proto.String("zones/" + zone + "/machineTypes/e2-standard-2"),
		Disks: []*computepb.AttachedDisk{{Boot: proto.Bool(true), AutoDelete: proto.Bool(true),
			InitializeParams: &computepb.AttachedDiskInitializeParams{SourceImage: proto.String("projects/debian-cloud/global/images/family/debian-12")}}},
		NetworkInterfaces: []*computepb.NetworkInterface{{Subnetwork: proto.String("regions/" + region + "/subnetworks/sub")}},
		Metadata: &computepb.Metadata{Items: []*computepb.Items{
			{Key: proto.String("startup-script"), Value: proto.String(script)},
			{Key: proto.String("enable-guest-attributes"), Value: proto.String("TRUE")},
		}},
	}})
	if err == nil {
		err = op.Wait(c.ctx)
	}
	if err != nil {
		c.t.Fatalf("creating VM %s: %v", name, err)
	}
	inst, err := c.instances.Get(c.ctx, &computepb.GetInstanceRequest{Project: project, Zone: zone, Instance: name})
	if err != nil {
		c.t.Fatalf("reading VM %s: %v", name, err)
	}
	if inst.GetStatus() != "RUNNING" {
		c.t.Fatalf("VM %s is %s, want RUNNING", name, inst.GetStatus())
	}
	return inst
}

// serial is the VM's console through instances.getSerialPortOutput.
func (c *cloud) serial(name string) string {
	c.t.Helper()
	out, err := c.instances.GetSerialPortOutput(c.ctx, &computepb.GetSerialPortOutputInstanceRequest{Project: project, Zone: zone, Instance: name})
	if err != nil {
		c.t.Fatalf("serial output of %s: %v", name, err)
	}
	return out.GetContents()
}

// waitSerial waits until the VM's console contains want n times.
func (c *cloud) waitSerial(name, want string, n int, timeout time.Duration) string {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		out := c.serial(name)
		if strings.Count(out, want) >= n {
			return out
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("%s's console never showed %q %d times; it holds:\n%s", name, want, n, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitAttr waits for a guest attribute ("namespace/key") through instances.getGuestAttributes. A startup
// script that ends without writing it fails the test with the console.
func (c *cloud) waitAttr(name, path string, timeout time.Duration) string {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ga, err := c.instances.GetGuestAttributes(c.ctx, &computepb.GetGuestAttributesInstanceRequest{
			Project: project, Zone: zone, Instance: name, QueryPath: proto.String(path)})
		if err == nil {
			for _, e := range ga.GetQueryValue().GetItems() {
				if e.GetNamespace()+"/"+e.GetKey() == path {
					return e.GetValue()
				}
			}
		}
		serial := c.serial(name)
		if strings.Contains(serial, "Finished running startup scripts.") && strings.Contains(serial, "startup-script exit status") &&
			!strings.Contains(serial, "startup-script exit status 0") {
			c.t.Fatalf("%s's startup script failed before writing %s:\n%s", name, path, serial)
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("%s never wrote guest attribute %s (last error %v); console:\n%s", name, path, err, serial)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// exec runs argv as root inside the VM through the runtime (what an SSH session would do).
func (c *cloud) exec(name string, argv ...string) string {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(c.ctx, 30*time.Second)
	defer cancel()
	out, stderr, err := c.env.Runtime.Exec(ctx, key(name), argv...)
	if err != nil {
		c.t.Fatalf("in %s: %q: %v\nstdout: %s\nstderr: %s", name, argv, err, out, stderr)
	}
	return string(out)
}

func key(name string) string { return instances.InstanceKey(project, zone, name) }

// hostProc is a process the runtime ran for a VM, and the network namespace it ran in.
type hostProc struct {
	pid   int
	netns string
}

// snapshotHosts lists the processes of every host the runtime holds now.
func snapshotHosts(env *emulatortest.Env) []hostProc {
	var out []hostProc
	for _, id := range env.Runtime.Hosts() {
		pids, _ := env.Runtime.Pids(id)
		out = append(out, procsOf(pids)...)
	}
	return out
}

func procsOf(pids []int) []hostProc {
	var out []hostProc
	for _, pid := range pids {
		if ns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/net", pid)); err == nil {
			out = append(out, hostProc{pid, ns})
		}
	}
	return out
}

// assertNothingLeft checks what a user would after an emulator is gone: ip netns, ip link, /proc/mounts, the
// cgroup tree, the process table and the state dir hold nothing of the runtime's prefix.
func assertNothingLeft(t *testing.T, prefix, stateDir string, procs []hostProc) {
	t.Helper()
	for _, args := range [][]string{{"netns", "list"}, {"-o", "link", "show"}} {
		out, err := exec.Command("ip", args...).CombinedOutput()
		if err != nil {
			t.Errorf("ip %s: %v %s", strings.Join(args, " "), err, out)
		}
		if strings.Contains(string(out), prefix+"-") {
			t.Errorf("ip %s still lists the runtime's %s-*:\n%s", strings.Join(args, " "), prefix, out)
		}
	}
	mounts, _ := os.ReadFile("/proc/mounts")
	if strings.Contains(string(mounts), prefix) {
		t.Errorf("/proc/mounts still names %s:\n%s", prefix, mounts)
	}
	if cgs := cgroupsNamed(prefix + "-"); len(cgs) > 0 {
		t.Errorf("cgroups left: %v", cgs)
	}
	if _, err := os.Stat(stateDir); err == nil {
		t.Errorf("state dir %s left", stateDir)
	}
	nss := map[string]bool{}
	for _, p := range procs {
		nss[p.netns] = true
	}
	// Any process still in one of the hosts' network namespaces (zombies have none) survived.
	deadline := time.Now().Add(5 * time.Second)
	for {
		var alive []string
		links, _ := filepath.Glob("/proc/[0-9]*/ns/net")
		for _, l := range links {
			if ns, err := os.Readlink(l); err == nil && nss[ns] {
				cmdline, _ := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(l)), "cmdline"))
				alive = append(alive, filepath.Base(filepath.Dir(filepath.Dir(l)))+" "+strings.ReplaceAll(string(cmdline), "\x00", " "))
			}
		}
		if len(alive) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("processes of the runtime's hosts still run: %v", alive)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// cgroupsNamed finds cgroup directories whose name starts with prefix, a few levels deep in every hierarchy.
func cgroupsNamed(prefix string) []string {
	var found []string
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			p := filepath.Join(dir, e.Name())
			if strings.HasPrefix(e.Name(), prefix) {
				found = append(found, p)
				continue
			}
			if depth < 5 {
				walk(p, depth+1)
			}
		}
	}
	walk("/sys/fs/cgroup", 0)
	return found
}

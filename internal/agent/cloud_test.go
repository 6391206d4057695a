package agent_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
)

const (
	project     = "agent-test"
	region      = "us-central1"
	zone        = "us-central1-a"
	testVersion = "0.0.0-agenttest"
)

// cloud is the local cloud as the provider sees it: the official clients
// pointed at an in-process emulator whose VMs boot as hosts of this machine.
type cloud struct {
	t         testing.TB
	ctx       context.Context
	env       *emulatortest.Env
	instances *compute.InstancesClient
	filestore *filestore.CloudFilestoreManagerClient
}

func startCloud(t testing.TB) *cloud {
	t.Helper()
	env := emulatortest.Start(t, emulatortest.WithLocalRuntime())
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	c := &cloud{t: t, ctx: ctx, env: env}
	var err error
	if c.instances, err = compute.NewInstancesRESTClient(ctx, env.ClientOptions()...); err != nil {
		t.Fatal(err)
	}
	if c.filestore, err = filestore.NewCloudFilestoreManagerRESTClient(ctx, option.WithEndpoint(env.URL+"/filestore/"), option.WithoutAuthentication()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.instances.Close(); c.filestore.Close() })
	return c
}

// network creates VPC "vpc", subnet "sub" and private service access for
// Filestore.
func (c *cloud) network() {
	c.t.Helper()
	opts := c.env.ClientOptions()
	networks, err := compute.NewNetworksRESTClient(c.ctx, opts...)
	if err != nil {
		c.t.Fatal(err)
	}
	defer networks.Close()
	subnets, err := compute.NewSubnetworksRESTClient(c.ctx, opts...)
	if err != nil {
		c.t.Fatal(err)
	}
	defer subnets.Close()
	addresses, err := compute.NewGlobalAddressesRESTClient(c.ctx, opts...)
	if err != nil {
		c.t.Fatal(err)
	}
	defer addresses.Close()
	wait := func(what string, op *compute.Operation, err error) {
		c.t.Helper()
		if err == nil {
			err = op.Wait(c.ctx)
		}
		if err != nil {
			c.t.Fatalf("%s: %v", what, err)
		}
	}
	op, err := networks.Insert(c.ctx, &computepb.InsertNetworkRequest{Project: project, NetworkResource: &computepb.Network{
		Name: proto.String("vpc"), AutoCreateSubnetworks: proto.Bool(false)}})
	wait("creating the network", op, err)
	op, err = subnets.Insert(c.ctx, &computepb.InsertSubnetworkRequest{Project: project, Region: region, SubnetworkResource: &computepb.Subnetwork{
		Name: proto.String("sub"), Network: proto.String("global/networks/vpc"), IpCidrRange: proto.String("10.128.0.0/20")}})
	wait("creating the subnet", op, err)
	op, err = addresses.Insert(c.ctx, &computepb.InsertGlobalAddressRequest{Project: project, AddressResource: &computepb.Address{
		Name: proto.String("psa"), AddressType: proto.String("INTERNAL"), Purpose: proto.String("VPC_PEERING"),
		Address: proto.String("10.20.0.0"), PrefixLength: proto.Int32(20), Network: proto.String("projects/" + project + "/global/networks/vpc")}})
	wait("reserving the PSA range", op, err)
	svc, err := sn.NewService(c.ctx, option.WithEndpoint(c.env.URL+"/servicenetworking/"), option.WithoutAuthentication())
	if err != nil {
		c.t.Fatal(err)
	}
	snOp, err := svc.Services.Connections.Create("services/servicenetworking.googleapis.com", &sn.Connection{
		Network: "projects/" + emulator.ProjectNumber(project) + "/global/networks/vpc", ReservedPeeringRanges: []string{"psa"}}).Context(c.ctx).Do()
	for err == nil && !snOp.Done {
		time.Sleep(10 * time.Millisecond)
		snOp, err = svc.Operations.Get(snOp.Name).Context(c.ctx).Do()
	}
	if err == nil && snOp.Error != nil {
		err = fmt.Errorf("%s", snOp.Error.Message)
	}
	if err != nil {
		c.t.Fatalf("connecting private service access: %v", err)
	}
}

// createFilestore creates a Filestore instance with share "home" and
// returns its name and IP.
func (c *cloud) createFilestore(id string) (name, ip string) {
	c.t.Helper()
	op, err := c.filestore.CreateInstance(c.ctx, &filestorepb.CreateInstanceRequest{
		Parent: "projects/" + project + "/locations/" + zone, InstanceId: id,
		Instance: &filestorepb.Instance{
			Tier:       filestorepb.Instance_BASIC_HDD,
			FileShares: []*filestorepb.FileShareConfig{{Name: "home", CapacityGb: 1024}},
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
	return inst.GetName(), inst.GetNetworks()[0].GetIpAddresses()[0]
}

// createVM creates an e2-standard-2 VM on "sub" with the given metadata
// plus the flags every cluster VM gets.
func (c *cloud) createVM(name string, items map[string]string) {
	c.t.Helper()
	c.createVMOf(name, "e2-standard-2", items)
}

// createVMOf is createVM of a machine type; one with GPUs stops for host maintenance, as Compute
// requires.
func (c *cloud) createVMOf(name, machineType string, items map[string]string) {
	c.t.Helper()
	var sched *computepb.Scheduling
	if m, _ := catalog.Machine(machineType); m.HasGPU() {
		sched = &computepb.Scheduling{OnHostMaintenance: proto.String("TERMINATE"), AutomaticRestart: proto.Bool(true)}
	}
	md := &computepb.Metadata{}
	all := map[string]string{cc.GuestAttributesKey: "TRUE", "enable-oslogin": "TRUE", "block-project-ssh-keys": "TRUE"}
	for k, v := range items {
		all[k] = v
	}
	for k, v := range all {
		md.Items = append(md.Items, &computepb.Items{Key: proto.String(k), Value: proto.String(v)})
	}
	op, err := c.instances.Insert(c.ctx, &computepb.InsertInstanceRequest{Project: project, Zone: zone, InstanceResource: &computepb.Instance{
		Name:        proto.String(name),
		MachineType: proto.String("zones/" + zone + "/machineTypes/" + machineType),
		Disks: []*computepb.AttachedDisk{{Boot: proto.Bool(true), AutoDelete: proto.Bool(true),
			InitializeParams: &computepb.AttachedDiskInitializeParams{SourceImage: proto.String("projects/debian-cloud/global/images/family/debian-12")}}},
		NetworkInterfaces: []*computepb.NetworkInterface{{Subnetwork: proto.String("regions/" + region + "/subnetworks/sub")}},
		Metadata:          md,
		Scheduling:        sched,
		ServiceAccounts:   roleServiceAccount(items),
	}})
	if err == nil {
		err = op.Wait(c.ctx)
	}
	if err != nil {
		c.t.Fatalf("creating VM %s: %v", name, err)
	}
}

// roleServiceAccount is the identity hypercompute_training_cluster gives a VM of the role its node
// config names, with the role's default scopes: the local cloud holds the agent's token to them, so
// only the controller may call Compute.
func roleServiceAccount(items map[string]string) []*computepb.ServiceAccount {
	const auth = "https://www.googleapis.com/auth/"
	scopes := []string{auth + "devstorage.read_write", auth + "logging.write", auth + "monitoring.write"}
	if n, err := cc.DecodeNode([]byte(items[cc.NodeConfigKey])); err == nil && n.Role == cc.RoleController {
		scopes = []string{auth + "compute", auth + "devstorage.read_only", auth + "logging.write", auth + "monitoring.write"}
	}
	return []*computepb.ServiceAccount{{Email: proto.String("default"), Scopes: scopes}}
}

// setMetadata changes one key of a VM's metadata, as the provider does
// (fingerprint-checked setMetadata).
func (c *cloud) setMetadata(name, key, value string) {
	c.t.Helper()
	inst, err := c.instances.Get(c.ctx, &computepb.GetInstanceRequest{Project: project, Zone: zone, Instance: name})
	if err != nil {
		c.t.Fatal(err)
	}
	md := inst.GetMetadata()
	found := false
	for _, it := range md.Items {
		if it.GetKey() == key {
			it.Value, found = proto.String(value), true
		}
	}
	if !found {
		md.Items = append(md.Items, &computepb.Items{Key: proto.String(key), Value: proto.String(value)})
	}
	op, err := c.instances.SetMetadata(c.ctx, &computepb.SetMetadataInstanceRequest{Project: project, Zone: zone, Instance: name, MetadataResource: md})
	if err == nil {
		err = op.Wait(c.ctx)
	}
	if err != nil {
		c.t.Fatalf("setMetadata %s on %s: %v", key, name, err)
	}
}

// deleteMetadata removes one key from a VM's metadata.
func (c *cloud) deleteMetadata(name, key string) {
	c.t.Helper()
	inst, err := c.instances.Get(c.ctx, &computepb.GetInstanceRequest{Project: project, Zone: zone, Instance: name})
	if err != nil {
		c.t.Fatal(err)
	}
	md := inst.GetMetadata()
	kept := md.Items[:0]
	for _, it := range md.Items {
		if it.GetKey() != key {
			kept = append(kept, it)
		}
	}
	md.Items = kept
	op, err := c.instances.SetMetadata(c.ctx, &computepb.SetMetadataInstanceRequest{Project: project, Zone: zone, Instance: name, MetadataResource: md})
	if err == nil {
		err = op.Wait(c.ctx)
	}
	if err != nil {
		c.t.Fatalf("removing %s from %s: %v", key, name, err)
	}
}

// metadataText is every key and value of a VM's metadata.
func (c *cloud) metadataText(name string) string {
	c.t.Helper()
	inst, err := c.instances.Get(c.ctx, &computepb.GetInstanceRequest{Project: project, Zone: zone, Instance: name})
	if err != nil {
		c.t.Fatal(err)
	}
	var b strings.Builder
	for _, it := range inst.GetMetadata().GetItems() {
		b.WriteString(it.GetKey() + "=" + it.GetValue() + "\n")
	}
	return b.String()
}

// attrs reads the VM's hypercompute/ guest attributes.
func (c *cloud) attrs(name string) map[string]string {
	c.t.Helper()
	ga, err := c.instances.GetGuestAttributes(c.ctx, &computepb.GetGuestAttributesInstanceRequest{
		Project: project, Zone: zone, Instance: name, QueryPath: proto.String(cc.GuestAttributeNamespace + "/")})
	if err != nil {
		return map[string]string{}
	}
	out := map[string]string{}
	for _, e := range ga.GetQueryValue().GetItems() {
		if e.GetNamespace() == cc.GuestAttributeNamespace {
			out[e.GetKey()] = e.GetValue()
		}
	}
	return out
}

func (c *cloud) serial(name string) string {
	c.t.Helper()
	out, err := c.instances.GetSerialPortOutput(c.ctx, &computepb.GetSerialPortOutputInstanceRequest{Project: project, Zone: zone, Instance: name})
	if err != nil {
		c.t.Fatalf("serial output of %s: %v", name, err)
	}
	return out.GetContents()
}

// waitAttrs waits until the VM's guest attributes satisfy ok. A VM that
// reports a failure the test did not wait for fails the test at once with
// what a user would look at: the report, the console and the agent's log.
func (c *cloud) waitAttrs(name, what string, timeout time.Duration, ok func(map[string]string) bool, failOnError bool) map[string]string {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		a := c.attrs(name)
		if ok(a) {
			return a
		}
		phase := a[cc.GuestAttrPhase]
		if failOnError && (phase == cc.PhaseError || phase == cc.PhaseLauncherFailed) || time.Now().After(deadline) {
			c.t.Fatalf("%s: waiting for %s; guest attributes %v\n--- console ---\n%s\n--- agent log ---\n%s", name, what, a, c.serial(name), c.tryExec(name, "sh", "-c", "tail -n 40 /var/log/hypercompute/*.log"))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// exec runs argv as root inside a VM (what an SSH session would).
func (c *cloud) exec(name string, argv ...string) string {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(c.ctx, 30*time.Second)
	defer cancel()
	out, stderr, err := c.env.Runtime.Exec(ctx, instances.InstanceKey(project, zone, name), argv...)
	if err != nil {
		c.t.Fatalf("in %s: %q: %v\nstdout: %s\nstderr: %s", name, argv, err, out, stderr)
	}
	return string(out)
}

func (c *cloud) tryExec(name string, argv ...string) string {
	ctx, cancel := context.WithTimeout(c.ctx, 10*time.Second)
	defer cancel()
	out, stderr, err := c.env.Runtime.Exec(ctx, instances.InstanceKey(project, zone, name), argv...)
	if err != nil {
		return fmt.Sprintf("%s%s(%v)", out, stderr, err)
	}
	return string(out)
}

// buildAgent builds the agent once for the test, where every VM can read
// it: /var/tmp, because each VM has a private /tmp but sees the rest of
// this machine's files, as an image with a baked-in agent would.
func buildAgent(t testing.TB) (path, sum string) {
	t.Helper()
	if runtime.GOARCH != "amd64" {
		t.Skip("the local runtime's VMs run the x86_64 launcher")
	}
	dir, err := os.MkdirTemp("/var/tmp", "hypercompute-agent-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(dir, "hypercompute-agent")
	cmd := exec.Command("go", "build", "-ldflags", "-X main.version="+testVersion, "-o", path,
		"github.com/hypercompute/terraform-provider-hypercompute/cmd/hypercompute-agent")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the agent: %v\n%s", err, out)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return path, hex.EncodeToString(h.Sum(nil))
}

// requireSlurm skips where the VMs could not run Slurm.
func requireSlurm(t testing.TB) {
	for _, bin := range []string{"munged", "munge", "unmunge", "slurmctld", "slurmd", "slurmrestd", "scontrol", "sinfo", "curl", "sha256sum", "go"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("skipping: %s is not installed (run scripts/install-deps.sh)", bin)
		}
	}
	if os.Geteuid() != 0 {
		t.Skip("skipping: the local runtime needs root")
	}
}

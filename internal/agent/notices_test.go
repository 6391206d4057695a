package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	computeapi "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/metadata"
)

// recorder stands in for the Slurm node: it records every notice applied and fails the first failFirst calls.
type recorder struct {
	mu        sync.Mutex
	got       []notice
	failFirst int
	ch        chan struct{}
}

func (r *recorder) apply(_ context.Context, n notice) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, n)
	select {
	case r.ch <- struct{}{}:
	default:
	}
	if len(r.got) <= r.failFirst {
		return errors.New("slurmctld is not answering")
	}
	return nil
}

// waitFor waits until the last notice applied is want and returns every notice applied so far.
func (r *recorder) waitFor(t *testing.T, want notice) []notice {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		r.mu.Lock()
		got := append([]notice(nil), r.got...)
		r.mu.Unlock()
		if len(got) > 0 && got[len(got)-1] == want {
			return got
		}
		select {
		case <-r.ch:
		case <-deadline:
			t.Fatalf("notices applied %+v, want the last to be %+v", got, want)
		}
	}
}

// noticeCloud is an API-only emulator with one VM per scheduling given, each created through the Compute API.
func noticeCloud(t *testing.T, vms map[string]*computepb.Scheduling) (*instances.Service, *metadata.Server) {
	t.Helper()
	env := emulatortest.Start(t)
	ctx := context.Background()
	opts := env.ClientOptions()
	nets, err := computeapi.NewNetworksRESTClient(ctx, opts...)
	if err != nil {
		t.Fatal(err)
	}
	subs, _ := computeapi.NewSubnetworksRESTClient(ctx, opts...)
	insts, _ := computeapi.NewInstancesRESTClient(ctx, opts...)
	t.Cleanup(func() { nets.Close(); subs.Close(); insts.Close() })
	const project, region, zone = "notices", "us-central1", "us-central1-a"
	op, err := nets.Insert(ctx, &computepb.InsertNetworkRequest{Project: project, NetworkResource: &computepb.Network{Name: proto.String("vpc"), AutoCreateSubnetworks: proto.Bool(false)}})
	if err == nil {
		err = op.Wait(ctx)
	}
	if err != nil {
		t.Fatal(err)
	}
	op, err = subs.Insert(ctx, &computepb.InsertSubnetworkRequest{Project: project, Region: region, SubnetworkResource: &computepb.Subnetwork{
		Name: proto.String("sub"), Network: proto.String("global/networks/vpc"), IpCidrRange: proto.String("10.1.0.0/24")}})
	if err == nil {
		err = op.Wait(ctx)
	}
	if err != nil {
		t.Fatal(err)
	}
	for name, sc := range vms {
		op, err = insts.Insert(ctx, &computepb.InsertInstanceRequest{Project: project, Zone: zone, InstanceResource: &computepb.Instance{
			Name:        proto.String(name),
			MachineType: proto.String("zones/" + zone + "/machineTypes/e2-standard-2"),
			Disks: []*computepb.AttachedDisk{{Boot: proto.Bool(true), InitializeParams: &computepb.AttachedDiskInitializeParams{
				SourceImage: proto.String("projects/debian-cloud/global/images/family/debian-12")}}},
			NetworkInterfaces: []*computepb.NetworkInterface{{Subnetwork: proto.String("regions/" + region + "/subnetworks/sub")}},
			Scheduling:        sc,
		}})
		if err == nil {
			err = op.Wait(ctx)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	svc := env.Server.Component("instances").(*instances.Service)
	svc.SetNoticeWindows(instances.NoticeWindows{Maintenance: core.Duration(time.Second), Restart: core.Duration(300 * time.Millisecond),
		Preemption: core.Duration(300 * time.Millisecond)})
	return svc, env.Server.Component("metadata").(*metadata.Server)
}

// follow runs followNotices for the VM at key against its own metadata server until the test ends.
func follow(t *testing.T, md *metadata.Server, key string, node *recorder) {
	t.Helper()
	host, err := md.StartFor(key)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GCE_METADATA_HOST", host)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { followNotices(ctx, NewMetadata(), node, quietLog(), 50*time.Millisecond); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

// The agent follows what the emulator's metadata server announces: no notice at start, the maintenance
// notice as soon as it is posted, none again once the VM restarted on its new host; a node that could not act
// (slurmctld down) is retried with the same notice.
func TestFollowNoticesThroughAMaintenanceStop(t *testing.T) {
	svc, md := noticeCloud(t, map[string]*computepb.Scheduling{"gpu-0": {OnHostMaintenance: proto.String("TERMINATE")}})
	key := instances.InstanceKey("notices", "us-central1-a", "gpu-0")
	node := &recorder{failFirst: 2, ch: make(chan struct{}, 1)}
	follow(t, md, key, node)
	none := notice{Maintenance: "NONE"}
	deadline := time.Now().Add(5 * time.Second)
	for len(node.waitFor(t, none)) < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("a failed application was not retried: %+v", node.waitFor(t, none))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := svc.Maintenance(key, 0); err != nil {
		t.Fatal(err)
	}
	node.waitFor(t, notice{Maintenance: maintenanceTerminate})
	got := node.waitFor(t, none)
	var stops int
	for _, n := range got {
		if n.stopping() {
			stops++
			if n.reason() != noticeDrainPrefix+"host maintenance (instance/maintenance-event=TERMINATE_ON_HOST_MAINTENANCE)" {
				t.Errorf("drain reason %q", n.reason())
			}
		}
	}
	if stops == 0 {
		t.Fatalf("no stop notice among %+v", got)
	}
}

// A Spot VM's agent learns of its preemption from instance/preempted.
func TestFollowNoticesOfAPreemption(t *testing.T) {
	svc, md := noticeCloud(t, map[string]*computepb.Scheduling{"spot-0": {ProvisioningModel: proto.String("SPOT")}})
	key := instances.InstanceKey("notices", "us-central1-a", "spot-0")
	node := &recorder{ch: make(chan struct{}, 1)}
	follow(t, md, key, node)
	node.waitFor(t, notice{Maintenance: "NONE"})
	if _, err := svc.Preempt(key, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	want := notice{Maintenance: "NONE", Preempted: true}
	node.waitFor(t, want)
	if !want.stopping() || want.reason() != noticeDrainPrefix+"Spot preemption (instance/preempted=TRUE)" {
		t.Errorf("preemption notice: stopping=%v reason %q", want.stopping(), want.reason())
	}
}

// slurmScript plays the Slurm commands for slurmNode: it answers each command line by its first word and
// records them.
type slurmScript struct {
	answers map[string]string
	calls   []string
}

func (s *slurmScript) run(_ context.Context, env []string, name string, args ...string) (string, error) {
	s.calls = append(s.calls, strings.Join(env, " ")+"|"+name+" "+strings.Join(args, " "))
	return s.answers[name], nil
}

// On a stop notice the node drains itself with the notice's reason and sends USR1 to the batch script of each
// job running on it; once the notice is gone it resumes, only from its own notice drain.
func TestSlurmNodeActsOnNotices(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "slurm.conf")
	if err := os.WriteFile(conf, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	sc := &slurmScript{answers: map[string]string{"squeue": "41 c-a3-0 train\n42 c-a3-[0-1] eval\n"}}
	node := slurmNode{name: "c-a3-0", conf: []string{"/nonexistent/slurm.conf", conf}, log: quietLog(), run: sc.run}
	ctx := context.Background()
	stop := notice{Preempted: true}
	if err := node.apply(ctx, stop); err != nil {
		t.Fatal(err)
	}
	env := "SLURM_CONF=" + conf + "|"
	want := []string{
		env + "scontrol update nodename=c-a3-0 state=drain reason=" + stop.reason(),
		env + "squeue -h -w c-a3-0 -t RUNNING -o %A %N %j",
		env + "scancel --batch --signal=USR1 41",
		env + "scancel --batch --signal=USR1 42",
	}
	if !slices.Equal(sc.calls, want) {
		t.Errorf("stop notice ran\n%q\nwant\n%q", sc.calls, want)
	}

	sc.calls = nil
	sc.answers["sinfo"] = "c-a3-0|drained|" + stop.reason()
	if err := node.apply(ctx, notice{Maintenance: "NONE"}); err != nil {
		t.Fatal(err)
	}
	want = []string{env + "sinfo -h -N -o %N|%T|%E -n c-a3-0", env + "scontrol update nodename=c-a3-0 state=resume"}
	if !slices.Equal(sc.calls, want) {
		t.Errorf("notice gone ran\n%q\nwant\n%q", sc.calls, want)
	}

	sc.calls = nil
	sc.answers["sinfo"] = "c-a3-0|drained|an administrator's drain"
	if err := node.apply(ctx, notice{Maintenance: "NONE"}); err != nil {
		t.Fatal(err)
	}
	if len(sc.calls) != 1 {
		t.Errorf("a drain of someone else's was touched: %q", sc.calls)
	}
}

package tfutil_test

import (
	"slices"
	"strings"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

func entry(ns, k, v string) *computepb.GuestAttributesEntry {
	return &computepb.GuestAttributesEntry{Namespace: proto.String(ns), Key: proto.String(k), Value: proto.String(v)}
}

// A controller's report as the agent writes it reads back as the provider's waits see it.
func TestParseReport(t *testing.T) {
	r := tfutil.ParseReport([]*computepb.GuestAttributesEntry{
		entry(cc.GuestAttributeNamespace, cc.GuestAttrPhase, cc.PhaseReady),
		entry(cc.GuestAttributeNamespace, cc.GuestAttrConfigHash, "0123456789abcdef"),
		entry(cc.GuestAttributeNamespace, cc.GuestAttrConfigError, "fedcba slurmctld: fatal: bad line"),
		entry(cc.GuestAttributeNamespace, cc.RegisteredAttr("a3"), "c-a3-[0-2]"),
		entry(cc.GuestAttributeNamespace, cc.DrainedAttr("a3"), cc.FormatDrained("d7", []string{"c-a3-2"})),
		entry(cc.GuestAttributeNamespace, "job-train", "running"),
		entry("other", cc.GuestAttrPhase, cc.PhaseError),
	})
	if !r.Any() || r.Failed() || !r.Ready("0123456789abcdef") || r.Ready("fedcba") || !r.Ready("") {
		t.Errorf("report %+v: want ready with its hash, not failed", r)
	}
	if text, ok := r.Rejected("fedcba"); !ok || text != "slurmctld: fatal: bad line" {
		t.Errorf("Rejected(fedcba) = %q, %v", text, ok)
	}
	if _, ok := r.Rejected("0123456789abcdef"); ok {
		t.Error("a rejection of another hash must not count")
	}
	if got := r.Registered("a3"); !slices.Equal(got, []string{"c-a3-0", "c-a3-1", "c-a3-2"}) {
		t.Errorf("Registered(a3) = %v", got)
	}
	if id, nodes, ok := r.Drained("a3"); !ok || id != "d7" || !slices.Equal(nodes, []string{"c-a3-2"}) {
		t.Errorf("Drained(a3) = %q %v %v", id, nodes, ok)
	}
	if _, _, ok := r.Drained("l4"); ok {
		t.Error("a partition without a drain report has none")
	}
	if r.Attrs["job-train"] != "running" {
		t.Errorf("keys of other reports must be readable: %v", r.Attrs)
	}
	if got := r.String(); got != "phase ready, config-hash 0123456789ab" {
		t.Errorf("String() = %q", got)
	}

	failed := tfutil.ParseReport([]*computepb.GuestAttributesEntry{entry(cc.GuestAttributeNamespace, cc.GuestAttrPhase, cc.PhaseLauncherFailed)})
	if !failed.Failed() {
		t.Error("launcher-failed must count as failed")
	}
	if empty := tfutil.ParseReport(nil); empty.Any() || !strings.HasPrefix(empty.String(), "nothing reported yet") {
		t.Errorf("empty report = %q", empty.String())
	}
}

func TestNodeErrorPointsAtTheSerialConsoleWithoutText(t *testing.T) {
	e := &tfutil.NodeError{VM: "c-ctl", Zone: "us-central1-a", Phase: cc.PhaseError}
	if !strings.Contains(e.Error(), "get-serial-port-output c-ctl --zone us-central1-a") {
		t.Errorf("NodeError without text = %q", e.Error())
	}
	e.Text = "mount /home: timeout"
	if e.Error() != "VM c-ctl failed to bootstrap (phase error): mount /home: timeout" {
		t.Errorf("NodeError = %q", e.Error())
	}
}

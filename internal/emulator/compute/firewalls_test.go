package compute_test

import (
	"context"
	"slices"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
)

func TestFirewallLifecycle(t *testing.T) {
	env := emulatortest.Start(t)
	c := newClients(t, env)
	ctx := context.Background()
	insertNetwork(t, c, "vpc")

	op, err := c.firewalls.Insert(ctx, &computepb.InsertFirewallRequest{Project: project, FirewallResource: &computepb.Firewall{
		Name: proto.String("allow-internal"), Network: proto.String("global/networks/vpc"),
		Allowed:    []*computepb.Allowed{{IPProtocol: proto.String("tcp"), Ports: []string{"22", "6817-6819"}}, {IPProtocol: proto.String("icmp")}},
		TargetTags: []string{"slurm"},
	}})
	wait(t, op, err)
	fw, err := c.firewalls.Get(ctx, &computepb.GetFirewallRequest{Project: project, Firewall: "allow-internal"})
	if err != nil {
		t.Fatal(err)
	}
	if fw.GetPriority() != 1000 || fw.GetDirection() != "INGRESS" || !slices.Equal(fw.GetSourceRanges(), []string{"0.0.0.0/0"}) ||
		fw.GetNetwork() != "https://www.googleapis.com/compute/v1/projects/test-project/global/networks/vpc" || fw.GetDisabled() || len(fw.GetAllowed()) != 2 {
		t.Errorf("firewall = %v", fw)
	}

	op, err = c.firewalls.Patch(ctx, &computepb.PatchFirewallRequest{Project: project, Firewall: "allow-internal", FirewallResource: &computepb.Firewall{
		SourceRanges: []string{"10.0.0.0/8"},
	}})
	wait(t, op, err)
	fw, _ = c.firewalls.Get(ctx, &computepb.GetFirewallRequest{Project: project, Firewall: "allow-internal"})
	if !slices.Equal(fw.GetSourceRanges(), []string{"10.0.0.0/8"}) || len(fw.GetAllowed()) != 2 || !slices.Equal(fw.GetTargetTags(), []string{"slurm"}) {
		t.Errorf("patched firewall = %v", fw)
	}

	op, err = c.firewalls.Update(ctx, &computepb.UpdateFirewallRequest{Project: project, Firewall: "allow-internal", FirewallResource: &computepb.Firewall{
		Name: proto.String("allow-internal"), Network: proto.String("global/networks/vpc"), Priority: proto.Int32(900),
		Denied: []*computepb.Denied{{IPProtocol: proto.String("udp")}}, Direction: proto.String("EGRESS"),
	}})
	wait(t, op, err)
	fw, _ = c.firewalls.Get(ctx, &computepb.GetFirewallRequest{Project: project, Firewall: "allow-internal"})
	if fw.GetPriority() != 900 || len(fw.GetAllowed()) != 0 || len(fw.GetDenied()) != 1 || len(fw.GetTargetTags()) != 0 || fw.GetDirection() != "EGRESS" ||
		!slices.Equal(fw.GetDestinationRanges(), []string{"0.0.0.0/0"}) {
		t.Errorf("updated firewall = %v", fw)
	}

	for _, bad := range []*computepb.Firewall{
		{Name: proto.String("both"), Network: proto.String("global/networks/vpc"), Allowed: []*computepb.Allowed{{IPProtocol: proto.String("tcp")}}, Denied: []*computepb.Denied{{IPProtocol: proto.String("tcp")}}},
		{Name: proto.String("none"), Network: proto.String("global/networks/vpc")},
		{Name: proto.String("port"), Network: proto.String("global/networks/vpc"), Allowed: []*computepb.Allowed{{IPProtocol: proto.String("tcp"), Ports: []string{"70000"}}}},
		{Name: proto.String("icmpport"), Network: proto.String("global/networks/vpc"), Allowed: []*computepb.Allowed{{IPProtocol: proto.String("icmp"), Ports: []string{"1"}}}},
		{Name: proto.String("range"), Network: proto.String("global/networks/vpc"), Allowed: []*computepb.Allowed{{IPProtocol: proto.String("tcp")}}, SourceRanges: []string{"10.0.0.0/33"}},
	} {
		_, err := c.firewalls.Insert(ctx, &computepb.InsertFirewallRequest{Project: project, FirewallResource: bad})
		code, _, _ := httpError(t, err)
		if code != 400 {
			t.Errorf("firewall %s: code %d, want 400", bad.GetName(), code)
		}
	}
	_, err = c.firewalls.Insert(ctx, &computepb.InsertFirewallRequest{Project: project, FirewallResource: &computepb.Firewall{
		Name: proto.String("nonet"), Network: proto.String("global/networks/nope"), Allowed: []*computepb.Allowed{{IPProtocol: proto.String("tcp")}}}})
	wantHTTPError(t, err, 404, "notFound", "The resource 'projects/test-project/global/networks/nope' was not found")

	op, err = c.firewalls.Delete(ctx, &computepb.DeleteFirewallRequest{Project: project, Firewall: "allow-internal"})
	wait(t, op, err)
	_, err = c.firewalls.Get(ctx, &computepb.GetFirewallRequest{Project: project, Firewall: "allow-internal"})
	wantHTTPError(t, err, 404, "notFound", "")
	_, err = c.firewalls.Delete(ctx, &computepb.DeleteFirewallRequest{Project: project, Firewall: "allow-internal"})
	wantHTTPError(t, err, 404, "notFound", "The resource 'projects/test-project/global/firewalls/allow-internal' was not found")
}

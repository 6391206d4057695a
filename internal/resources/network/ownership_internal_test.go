package network

import (
	"context"
	"strings"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
)

// Two creates of one name at the same time both find no network; the VPC insert decides, and the
// loser is refused as not its own (Create then records nothing) before it makes any other part.
func TestApplyRefusesANetworkCreatedMeanwhile(t *testing.T) {
	env := emulatortest.Start(t)
	ctx := context.Background()
	c, err := gcp.NewClients(ctx, gcp.Config{Project: "hc-race", Region: "us-central1", EmulatorHost: env.Host})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	a := &applier{c: c, d: &desired{project: "hc-race", region: "us-central1", name: "hc-race", mtu: 8896,
		subnetCIDR: "10.0.0.0/20", privateGoogleAccess: true, nat: true, psa: true, psaPrefix: 20, n: names{base: "hc-race"}}}
	exists, err := a.claim(ctx)
	if exists || err != nil {
		t.Fatalf("claim of a network that does not exist: exists %v, err %v", exists, err)
	}
	// The other apply's insert lands between this one's claim and its insert.
	op, err := c.Networks.Insert(ctx, &computepb.InsertNetworkRequest{Project: "hc-race", NetworkResource: &computepb.Network{
		Name: proto.String("hc-race"), AutoCreateSubnetworks: proto.Bool(false), Description: proto.String(vpcDescription("")),
	}})
	if err == nil {
		_, err = c.WaitCompute(ctx, op)
	}
	if err != nil {
		t.Fatal(err)
	}
	before := env.Calls().Mutating
	err = a.apply(ctx, !exists)
	if !isNotOurs(err) || !strings.Contains(err.Error(), "was created by another apply at the same time") {
		t.Fatalf("apply after another apply's insert: err = %v, want a refusal", err)
	}
	if n := env.Calls().Mutating - before; n != 1 {
		t.Errorf("the refused apply made %d mutating calls; want only its losing insert: %v", n, env.Calls().Methods)
	}
}

// The description the user wrote comes back without the marker, whatever it holds.
func TestUserDescription(t *testing.T) {
	for _, d := range []string{"", "cluster VPC", "ends in a space ", createdMarker + " as a prefix"} {
		if got := userDescription(vpcDescription(d)); got != d {
			t.Errorf("userDescription(vpcDescription(%q)) = %q", d, got)
		}
	}
	if got := userDescription("made with gcloud"); got != "made with gcloud" {
		t.Errorf("a description without the marker changed: %q", got)
	}
}

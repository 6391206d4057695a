package servicenetworking_test

import (
	"strings"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest/psatest"
)

// TestTeardownRemovesPeeringByProjectNumber: Terraform's google provider abandons a Service Networking
// connection by removing the consumer network's peering through Compute, addressing the project by the number
// the connection names it with (projects/<number>/global/networks/N). The Go Compute client does the same here.
func TestTeardownRemovesPeeringByProjectNumber(t *testing.T) {
	e := psatest.Start(t)
	e.PSA("vpc")
	conns := listConnections(t, e, e.ConsumerNetwork("vpc"))
	if len(conns) != 1 || !strings.HasPrefix(conns[0].Network, "projects/") || conns[0].Peering == "" {
		t.Fatalf("connection: %+v", conns)
	}
	number := strings.Split(conns[0].Network, "/")[1]
	op, err := e.Networks.RemovePeering(e.Ctx, &computepb.RemovePeeringNetworkRequest{Project: number, Network: "vpc",
		NetworksRemovePeeringRequestResource: &computepb.NetworksRemovePeeringRequest{Name: proto.String(conns[0].Peering)}})
	if err != nil {
		t.Fatalf("removePeering by project number: %v", err)
	}
	if err := op.Wait(e.Ctx); err != nil {
		t.Fatalf("removePeering operation: %v", err)
	}
	n, err := e.Networks.Get(e.Ctx, &computepb.GetNetworkRequest{Project: psatest.Project, Network: "vpc"})
	if err != nil || len(n.GetPeerings()) != 0 {
		t.Errorf("peerings after removePeering by number: %v, %v", n.GetPeerings(), err)
	}
}

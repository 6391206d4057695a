package servicenetworking_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	sn "google.golang.org/api/servicenetworking/v1"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest/psatest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/servicenetworking"
)

const svc = "services/" + servicenetworking.DefaultService

func listConnections(t *testing.T, e *psatest.Env, network string) []*sn.Connection {
	t.Helper()
	resp, err := e.ServiceNet.Services.Connections.List(svc).Network(network).Do()
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	return resp.Connections
}

func opError(t *testing.T, op *sn.Operation) *sn.Status {
	t.Helper()
	if op.Error == nil {
		t.Fatalf("operation %s succeeded, want an error", op.Name)
	}
	return op.Error
}

func TestConnectionLifecycle(t *testing.T) {
	e := psatest.Start(t)
	e.Network("vpc")
	e.Range("vpc", "psa-a", 20, "10.20.0.0")
	e.Range("vpc", "psa-b", 24, "10.30.0.0")

	// Nothing connected yet: the list answers {} with no connections field at all.
	q := url.Values{"network": {e.ConsumerNetwork("vpc")}}
	res, err := http.Get(e.URL + "/servicenetworking/v1/" + svc + "/connections?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || strings.TrimSpace(string(body)) != "{}" {
		t.Fatalf("empty list = %d %s, want 200 {}", res.StatusCode, body)
	}

	op := e.Connect("vpc", "psa-a")
	if !strings.HasPrefix(op.Name, "operations/") || op.Error != nil {
		t.Fatalf("create operation = %+v", op)
	}
	var conn sn.Connection
	if err := json.Unmarshal(op.Response, &conn); err != nil {
		t.Fatal(err)
	}
	want := sn.Connection{Network: e.ConsumerNetwork("vpc"), ReservedPeeringRanges: []string{"psa-a"},
		Peering: "servicenetworking-googleapis-com", Service: "services/servicenetworking.googleapis.com"}
	if conn.Network != want.Network || conn.Peering != want.Peering || conn.Service != want.Service || !slices.Equal(conn.ReservedPeeringRanges, want.ReservedPeeringRanges) {
		t.Fatalf("response connection = %+v, want %+v", conn, want)
	}
	if !strings.Contains(string(op.Response), `"@type":"type.googleapis.com/google.cloud.servicenetworking.v1.Connection"`) {
		t.Errorf("response lacks the Connection @type: %s", op.Response)
	}
	// Compute shows the peering on the consumer network.
	vpc, err := e.Networks.Get(e.Ctx, &computepb.GetNetworkRequest{Project: psatest.Project, Network: "vpc"})
	if err != nil {
		t.Fatal(err)
	}
	if ps := vpc.GetPeerings(); len(ps) != 1 || ps[0].GetName() != "servicenetworking-googleapis-com" || ps[0].GetState() != "ACTIVE" ||
		!strings.HasSuffix(ps[0].GetNetwork(), "/global/networks/servicenetworking") {
		t.Fatalf("network peerings = %v", ps)
	}
	// The project-ID form of the network finds the same connection.
	got := listConnections(t, e, "projects/"+psatest.Project+"/global/networks/vpc")
	if len(got) != 1 || got[0].Network != e.ConsumerNetwork("vpc") {
		t.Fatalf("list = %+v", got)
	}

	// A second create with other ranges is refused in the operation, with the API's own words.
	op2, err := e.ServiceNet.Services.Connections.Create(svc, &sn.Connection{Network: e.ConsumerNetwork("vpc"), ReservedPeeringRanges: []string{"psa-a", "psa-b"}}).Do()
	if err != nil {
		t.Fatal(err)
	}
	st := opError(t, e.SNOp(op2))
	if st.Code != 9 || st.Message != "Cannot modify allocated ranges in CreateConnection. Please use UpdateConnection." {
		t.Fatalf("create on existing = %d %q", st.Code, st.Message)
	}

	// UpdateConnection adds a range (connections/- as Terraform's google provider does).
	patch := func(ranges []string, force bool) *sn.Operation {
		t.Helper()
		op, err := e.ServiceNet.Services.Connections.Patch(svc+"/connections/-", &sn.Connection{Network: e.ConsumerNetwork("vpc"), ReservedPeeringRanges: ranges}).
			UpdateMask("reservedPeeringRanges").Force(force).Do()
		if err != nil {
			t.Fatalf("patch: %v", err)
		}
		return e.SNOp(op)
	}
	if op := patch([]string{"psa-a", "psa-b"}, false); op.Error != nil {
		t.Fatalf("adding a range: %s", op.Error.Message)
	}
	if got := listConnections(t, e, e.ConsumerNetwork("vpc")); !slices.Equal(got[0].ReservedPeeringRanges, []string{"psa-a", "psa-b"}) {
		t.Fatalf("ranges after patch = %v", got[0].ReservedPeeringRanges)
	}
	// Removing a range needs force.
	if st := opError(t, patch([]string{"psa-a"}, false)); st.Code != 9 || !strings.Contains(st.Message, "force") {
		t.Fatalf("removal without force = %d %q", st.Code, st.Message)
	}
	if op := patch([]string{"psa-a"}, true); op.Error != nil {
		t.Fatalf("removal with force: %s", op.Error.Message)
	}

	// The connected range cannot be deleted in Compute while attached.
	if _, err := e.GlobalAddresses.Delete(e.Ctx, &computepb.DeleteGlobalAddressRequest{Project: psatest.Project, Address: "psa-a"}); err != nil {
		t.Fatalf("delete call: %v", err)
	}
	if _, err := e.GlobalAddresses.Get(e.Ctx, &computepb.GetGlobalAddressRequest{Project: psatest.Project, Address: "psa-a"}); err != nil {
		t.Fatalf("the attached range was deleted: %v", err)
	}

	// Nor can the network.
	if _, err := e.Networks.Delete(e.Ctx, &computepb.DeleteNetworkRequest{Project: psatest.Project, Network: "vpc"}); err != nil {
		t.Fatalf("delete call: %v", err)
	}
	if _, err := e.Networks.Get(e.Ctx, &computepb.GetNetworkRequest{Project: psatest.Project, Network: "vpc"}); err != nil {
		t.Fatalf("the connected network was deleted: %v", err)
	}

	// deleteConnection posts to v1/{name} with the consumer network.
	dop, err := e.ServiceNet.Services.Connections.DeleteConnection(svc+"/connections/servicenetworking-googleapis-com",
		&sn.DeleteConnectionRequest{ConsumerNetwork: e.ConsumerNetwork("vpc")}).Do()
	if err != nil {
		t.Fatal(err)
	}
	if op := e.SNOp(dop); op.Error != nil {
		t.Fatalf("delete: %s", op.Error.Message)
	}
	if got := listConnections(t, e, e.ConsumerNetwork("vpc")); len(got) != 0 {
		t.Fatalf("list after delete = %+v", got)
	}
	if vpc, err := e.Networks.Get(e.Ctx, &computepb.GetNetworkRequest{Project: psatest.Project, Network: "vpc"}); err != nil || len(vpc.GetPeerings()) != 0 {
		t.Fatalf("peerings after delete = %v, %v", vpc.GetPeerings(), err)
	}
	if n := e.Server.Calls.Count("servicenetworking.services.connections.deleteConnection"); n != 1 {
		t.Errorf("deleteConnection counted %d times", n)
	}
}

func TestConnectionRangeErrors(t *testing.T) {
	e := psatest.Start(t)
	e.Network("vpc")
	e.Network("other")
	e.Range("other", "foreign", 20, "10.40.0.0")

	cases := map[string][]string{
		"Allocated IP range 'missing' not found in network.": {"missing"},
		"Allocated IP range 'foreign' not found in network.": {"foreign"}, // a range of another network
	}
	for want, ranges := range cases {
		st := opError(t, e.Connect("vpc", ranges...))
		if st.Code != 9 || st.Message != want {
			t.Errorf("ranges %v: %d %q, want 9 %q", ranges, st.Code, st.Message, want)
		}
	}
	if got := listConnections(t, e, e.ConsumerNetwork("vpc")); len(got) != 0 {
		t.Fatalf("a failed create left %+v", got)
	}

	// A network that does not exist fails the operation; a malformed one, or none, is a 400.
	if st := opError(t, e.Connect("nope", "foreign")); st.Code != 5 {
		t.Errorf("missing network: %d %q", st.Code, st.Message)
	}
	_, err := e.ServiceNet.Services.Connections.Create(svc, &sn.Connection{Network: "vpc", ReservedPeeringRanges: []string{"x"}}).Do()
	if err == nil || !strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), "network") {
		t.Errorf("malformed network: %v", err)
	}
	_, err = e.ServiceNet.Services.Connections.List(svc).Do()
	if err == nil || !strings.Contains(err.Error(), "400") {
		t.Errorf("list without network: %v", err)
	}
	// Unknown operations are 404.
	if _, err := e.ServiceNet.Operations.Get("operations/nope").Do(); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("unknown operation: %v", err)
	}
}

// A producer holding a block in a range keeps that range in the connection and the connection alive.
func TestConnectionInUseByProducer(t *testing.T) {
	e := psatest.Start(t)
	e.Network("vpc")
	e.Range("vpc", "psa-a", 24, "10.20.0.0")
	e.Range("vpc", "psa-b", 24, "10.30.0.0")
	e.Connect("vpc", "psa-a", "psa-b")
	net := servicenetworking.NetworkRef{Project: psatest.Project, Name: "vpc"}
	owner := "projects/" + psatest.Project + "/locations/us-central1-a/instances/fs"
	var got servicenetworking.Allocation
	err := e.Server.Store.Update(func(tx *core.Tx) error {
		var err error
		got, err = servicenetworking.AllocatePSA(tx, servicenetworking.BlockRequest{Network: net, Owner: owner, Service: "file.googleapis.com", PrefixLength: 29, Range: "psa-b"})
		return err
	})
	if err != nil || got.CIDR != "10.30.0.0/29" || got.Range != "psa-b" || got.Host(2) != "10.30.0.2" {
		t.Fatalf("allocation = %+v, %v", got, err)
	}

	op, err := e.ServiceNet.Services.Connections.Patch(svc+"/connections/-", &sn.Connection{Network: e.ConsumerNetwork("vpc"), ReservedPeeringRanges: []string{"psa-a"}}).
		UpdateMask("reservedPeeringRanges").Force(true).Do()
	if err != nil {
		t.Fatal(err)
	}
	st := opError(t, e.SNOp(op))
	if st.Code != 9 || !strings.Contains(st.Message, "Producer services (e.g. CloudSQL, Cloud Memstore, etc.) are still using this connection.") || !strings.Contains(st.Message, owner) {
		t.Fatalf("removing a used range = %d %q", st.Code, st.Message)
	}
	del := func() *sn.Operation {
		op, err := e.ServiceNet.Services.Connections.DeleteConnection(svc+"/connections/servicenetworking-googleapis-com",
			&sn.DeleteConnectionRequest{ConsumerNetwork: e.ConsumerNetwork("vpc")}).Do()
		if err != nil {
			t.Fatal(err)
		}
		return e.SNOp(op)
	}
	if st := opError(t, del()); st.Code != 9 || !strings.Contains(st.Message, "Producer services") {
		t.Fatalf("deleting a used connection = %d %q", st.Code, st.Message)
	}
	// Removing the unused range is fine.
	op, _ = e.ServiceNet.Services.Connections.Patch(svc+"/connections/-", &sn.Connection{Network: e.ConsumerNetwork("vpc"), ReservedPeeringRanges: []string{"psa-b"}}).
		UpdateMask("reservedPeeringRanges").Force(true).Do()
	if op := e.SNOp(op); op.Error != nil {
		t.Fatalf("removing the unused range: %s", op.Error.Message)
	}
	_ = e.Server.Store.Update(func(tx *core.Tx) error { servicenetworking.ReleaseOwner(tx, owner); return nil })
	if op := del(); op.Error != nil {
		t.Fatalf("delete after release: %s", op.Error.Message)
	}
}

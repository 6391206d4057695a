package compute_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"testing"

	compute "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/googleapis/gax-go/v2/apierror"
	"google.golang.org/api/googleapi"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
)

const project = "test-project"

type clients struct {
	networks     *compute.NetworksClient
	subnets      *compute.SubnetworksClient
	firewalls    *compute.FirewallsClient
	routers      *compute.RoutersClient
	addresses    *compute.GlobalAddressesClient
	globalOps    *compute.GlobalOperationsClient
	regionOps    *compute.RegionOperationsClient
	zones        *compute.ZonesClient
	regions      *compute.RegionsClient
	machineTypes *compute.MachineTypesClient
	projects     *compute.ProjectsClient
}

// newClients builds the official REST clients against env, the way the provider does.
func newClients(t *testing.T, env *emulatortest.Env) *clients {
	t.Helper()
	ctx := context.Background()
	opts := env.ClientOptions()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	var c clients
	var err error
	c.networks, err = compute.NewNetworksRESTClient(ctx, opts...)
	must(err)
	c.subnets, err = compute.NewSubnetworksRESTClient(ctx, opts...)
	must(err)
	c.firewalls, err = compute.NewFirewallsRESTClient(ctx, opts...)
	must(err)
	c.routers, err = compute.NewRoutersRESTClient(ctx, opts...)
	must(err)
	c.addresses, err = compute.NewGlobalAddressesRESTClient(ctx, opts...)
	must(err)
	c.globalOps, err = compute.NewGlobalOperationsRESTClient(ctx, opts...)
	must(err)
	c.regionOps, err = compute.NewRegionOperationsRESTClient(ctx, opts...)
	must(err)
	c.zones, err = compute.NewZonesRESTClient(ctx, opts...)
	must(err)
	c.regions, err = compute.NewRegionsRESTClient(ctx, opts...)
	must(err)
	c.machineTypes, err = compute.NewMachineTypesRESTClient(ctx, opts...)
	must(err)
	c.projects, err = compute.NewProjectsRESTClient(ctx, opts...)
	must(err)
	t.Cleanup(func() {
		c.networks.Close()
		c.subnets.Close()
		c.firewalls.Close()
		c.routers.Close()
		c.addresses.Close()
		c.globalOps.Close()
		c.regionOps.Close()
		c.zones.Close()
		c.regions.Close()
		c.machineTypes.Close()
		c.projects.Close()
	})
	return &c
}

// wait waits for an operation with the client's own Wait and fails the test on error.
func wait(t *testing.T, op *compute.Operation, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("call failed: %v", err)
	}
	if err := op.Wait(context.Background()); err != nil {
		t.Fatalf("operation failed: %v", err)
	}
}

// httpError extracts the HTTP status and Compute reason of a client error.
func httpError(t *testing.T, err error) (int, string, string) {
	t.Helper()
	if err == nil {
		t.Fatal("expected an error, got none")
	}
	var ae *apierror.APIError
	if errors.As(err, &ae) {
		if ge, ok := ae.Unwrap().(*googleapi.Error); ok {
			reason := ""
			if len(ge.Errors) > 0 {
				reason = ge.Errors[0].Reason
			}
			return ge.Code, reason, ge.Message
		}
		return ae.HTTPCode(), ae.Reason(), ae.Error()
	}
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		reason := ""
		if len(ge.Errors) > 0 {
			reason = ge.Errors[0].Reason
		}
		return ge.Code, reason, ge.Message
	}
	t.Fatalf("not an API error: %T %v", err, err)
	return 0, "", ""
}

func wantHTTPError(t *testing.T, err error, code int, reason, message string) {
	t.Helper()
	gotCode, gotReason, gotMsg := httpError(t, err)
	if gotCode != code || (reason != "" && gotReason != reason) || (message != "" && gotMsg != message) {
		t.Fatalf("error = %d %q %q, want %d %q %q", gotCode, gotReason, gotMsg, code, reason, message)
	}
}

// do sends a raw request to the emulator and decodes the JSON answer.
func do(t *testing.T, env *emulatortest.Env, method, path string, body any) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, env.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("%s %s: answer is not JSON: %s", method, path, raw)
		}
	}
	return resp.StatusCode, out
}

// errorBody returns the "error" object of a Compute error answer.
func errorBody(t *testing.T, body map[string]any) (code float64, message, reason string) {
	t.Helper()
	e, ok := body["error"].(map[string]any)
	if !ok {
		t.Fatalf("no error object in %v", body)
	}
	errs, _ := e["errors"].([]any)
	if len(errs) != 1 {
		t.Fatalf("error.errors = %v, want one item", e["errors"])
	}
	item := errs[0].(map[string]any)
	if item["message"] != e["message"] || item["domain"] != "global" {
		t.Errorf("error item %v does not repeat the message in domain global", item)
	}
	return e["code"].(float64), e["message"].(string), item["reason"].(string)
}

// insertNetwork creates a custom-mode network and waits for it.
func insertNetwork(t *testing.T, c *clients, name string) {
	t.Helper()
	op, err := c.networks.Insert(context.Background(), &computepb.InsertNetworkRequest{Project: project, NetworkResource: &computepb.Network{
		Name: proto.String(name), AutoCreateSubnetworks: proto.Bool(false),
	}})
	wait(t, op, err)
}

// insertSubnet creates a subnetwork in us-central1 and waits for it.
func insertSubnet(t *testing.T, c *clients, network, name, cidr string) {
	t.Helper()
	op, err := c.subnets.Insert(context.Background(), &computepb.InsertSubnetworkRequest{Project: project, Region: "us-central1",
		SubnetworkResource: &computepb.Subnetwork{Name: proto.String(name), Network: proto.String("global/networks/" + network), IpCidrRange: proto.String(cidr)}})
	wait(t, op, err)
}

package acctest

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"google.golang.org/api/iterator"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator"
)

// The store kinds a network test inspects; every one must be empty after destroy.
var networkKinds = []string{
	"compute.networks", "compute.subnetworks", "compute.firewalls", "compute.routers",
	"compute.globalAddresses", "servicenetworking.connections",
}

// CheckNothingLeft is a CheckDestroy: after destroy the local cloud holds none of the kinds a
// network owns — nothing orphaned.
func (e *Env) CheckNothingLeft(*terraform.State) error {
	inv := e.Inventory()
	var left []string
	for _, k := range networkKinds {
		for _, n := range inv.Names(k) {
			left = append(left, k+"/"+n)
		}
	}
	if len(left) > 0 {
		return fmt.Errorf("resources left after destroy: %s", strings.Join(left, ", "))
	}
	return nil
}

// CheckCount asserts how many resources of a kind exist (no duplicates, nothing missing).
func (e *Env) CheckCount(kind string, want int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if got := e.Inventory().Names(kind); len(got) != want {
			return fmt.Errorf("%s: have %d %v, want %d", kind, len(got), got, want)
		}
		return nil
	}
}

// CheckPresent asserts that a resource of kind with name exists.
func (e *Env) CheckPresent(kind, name string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if !slices.Contains(e.Inventory().Names(kind), name) {
			return fmt.Errorf("%s %s does not exist", kind, name)
		}
		return nil
	}
}

// CheckAbsent asserts that no resource of kind with name exists.
func (e *Env) CheckAbsent(kind, name string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if slices.Contains(e.Inventory().Names(kind), name) {
			return fmt.Errorf("%s %s still exists", kind, name)
		}
		return nil
	}
}

// CheckErrorsInjected asserts that injected faults really were answered (a fault test that saw no
// fault proves nothing).
func (e *Env) CheckErrorsInjected() resource.TestCheckFunc {
	return func(*terraform.State) error {
		if n := e.Calls().Errors; n == 0 {
			return fmt.Errorf("no call was answered with an error; the fault injection did not take effect")
		}
		return nil
	}
}

func (e *Env) firewall(name string) (*computepb.Firewall, error) {
	for _, it := range e.Inventory().Kinds["compute.firewalls"] {
		if it.Name == name {
			var fw computepb.Firewall
			if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(it.Resource, &fw); err != nil {
				return nil, err
			}
			return &fw, nil
		}
	}
	return nil, fmt.Errorf("firewall rule %s does not exist", name)
}

// CheckFirewallSources asserts a firewall rule's exact source ranges.
func (e *Env) CheckFirewallSources(name string, sources ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		fw, err := e.firewall(name)
		if err != nil {
			return err
		}
		if !slices.Equal(fw.GetSourceRanges(), sources) {
			return fmt.Errorf("firewall %s: source ranges %v, want %v", name, fw.GetSourceRanges(), sources)
		}
		return nil
	}
}

// CheckNoPublicIngress asserts the secure default: no ingress rule admits 0.0.0.0/0.
func (e *Env) CheckNoPublicIngress() resource.TestCheckFunc {
	return func(*terraform.State) error {
		for _, it := range e.Inventory().Kinds["compute.firewalls"] {
			var fw struct {
				Direction    string   `json:"direction"`
				SourceRanges []string `json:"sourceRanges"`
			}
			if err := json.Unmarshal(it.Resource, &fw); err != nil {
				return err
			}
			if fw.Direction != "EGRESS" && slices.Contains(fw.SourceRanges, "0.0.0.0/0") {
				return fmt.Errorf("firewall %s admits the whole internet", it.Name)
			}
		}
		return nil
	}
}

// DeleteNetworkOutOfBand tears a network and everything in it down through the API, the way a
// person with the console would, behind Terraform's back.
func (e *Env) DeleteNetworkOutOfBand(ctx context.Context, name string) error {
	c := e.Clients()
	netURL := "https://www.googleapis.com/compute/v1/projects/" + Project + "/global/networks/" + name
	// Service Networking's peering goes first, then everything that references the network.
	consumer := "projects/" + emulator.ProjectNumber(Project) + "/global/networks/" + name
	conns, err := c.ServiceNetworking.Services.Connections.List("services/servicenetworking.googleapis.com").Network(consumer).Context(ctx).Do()
	if err != nil {
		return err
	}
	for _, conn := range conns.Connections {
		op, err := c.ServiceNetworking.Services.Connections.DeleteConnection("services/servicenetworking.googleapis.com/connections/"+conn.Peering,
			&servicenetworkingDeleteRequest{ConsumerNetwork: consumer}).Context(ctx).Do()
		if err != nil {
			return err
		}
		if _, err := c.WaitServiceNetworkingOp(ctx, op); err != nil {
			return err
		}
	}
	fws := c.Firewalls.List(ctx, &computepb.ListFirewallsRequest{Project: Project})
	for {
		fw, err := fws.Next()
		if err == iterator.Done {
			break
		}
		if err != nil {
			return err
		}
		if fw.GetNetwork() == netURL {
			if _, err := wait(ctx, c, func() (*computeOperation, error) {
				return c.Firewalls.Delete(ctx, &computepb.DeleteFirewallRequest{Project: Project, Firewall: fw.GetName()})
			}); err != nil {
				return err
			}
		}
	}
	if _, err := wait(ctx, c, func() (*computeOperation, error) {
		return c.Routers.Delete(ctx, &computepb.DeleteRouterRequest{Project: Project, Region: Region, Router: name + "-router"})
	}); err != nil {
		return err
	}
	if _, err := wait(ctx, c, func() (*computeOperation, error) {
		return c.GlobalAddresses.Delete(ctx, &computepb.DeleteGlobalAddressRequest{Project: Project, Address: name + "-psa"})
	}); err != nil {
		return err
	}
	subs := c.Subnetworks.List(ctx, &computepb.ListSubnetworksRequest{Project: Project, Region: Region, Filter: proto.String(fmt.Sprintf("network eq %q", netURL))})
	for {
		s, err := subs.Next()
		if err == iterator.Done {
			break
		}
		if err != nil {
			return err
		}
		if _, err := wait(ctx, c, func() (*computeOperation, error) {
			return c.Subnetworks.Delete(ctx, &computepb.DeleteSubnetworkRequest{Project: Project, Region: Region, Subnetwork: s.GetName()})
		}); err != nil {
			return err
		}
	}
	_, err = wait(ctx, c, func() (*computeOperation, error) {
		return c.Networks.Delete(ctx, &computepb.DeleteNetworkRequest{Project: Project, Network: name})
	})
	return err
}

// ErrorMatching compiles an expected error pattern so that it matches across the line breaks
// Terraform inserts when it wraps diagnostics: every space in the pattern matches any whitespace.
func ErrorMatching(pattern string) *regexp.Regexp {
	return regexp.MustCompile(strings.ReplaceAll(pattern, " ", `\s+`))
}

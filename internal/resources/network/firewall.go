package network

import (
	"context"
	"fmt"
	"slices"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// firewallRule is the part of a firewall rule this resource manages. Only ingress rules exist:
// egress stays at the VPC's implied allow-all so nodes reach mirrors through NAT.
type firewallRule struct {
	name, network string
	sources       []string
	protocols     map[string][]string // protocol → ports (nil: all ports)
	description   string
}

func (a *applier) desiredFirewalls() []firewallRule {
	net := networkURL(a.d.project, a.d.name)
	rules := []firewallRule{{
		name: a.d.n.fwInternal(), network: net, sources: []string{a.d.subnetCIDR},
		protocols:   map[string][]string{"tcp": nil, "udp": nil, "icmp": nil},
		description: "hypercompute: all traffic between the cluster's VMs",
	}}
	if a.d.iapSSH {
		rules = append(rules, firewallRule{
			name: a.d.n.fwIAPSSH(), network: net, sources: []string{IAPRange},
			protocols:   map[string][]string{"tcp": {"22"}},
			description: "hypercompute: SSH through Identity-Aware Proxy only",
		})
	}
	if g := a.d.gpu; g != nil {
		for i, cidr := range g.gvnic {
			rules = append(rules, firewallRule{
				name: a.d.n.gpuFW(i), network: networkURL(a.d.project, a.d.n.gpuNet(i)), sources: []string{cidr},
				protocols:   map[string][]string{"tcp": nil, "udp": nil, "icmp": nil},
				description: "hypercompute: GPU traffic between the cluster's VMs",
			})
		}
	}
	return rules
}

func (f firewallRule) proto() *computepb.Firewall {
	fw := &computepb.Firewall{
		Name:         proto.String(f.name),
		Network:      proto.String(f.network),
		Direction:    proto.String("INGRESS"),
		Priority:     proto.Int32(1000),
		SourceRanges: f.sources,
		Description:  proto.String(f.description),
	}
	protos := make([]string, 0, len(f.protocols))
	for p := range f.protocols {
		protos = append(protos, p)
	}
	slices.Sort(protos) // deterministic request bodies
	for _, p := range protos {
		fw.Allowed = append(fw.Allowed, &computepb.Allowed{IPProtocol: proto.String(p), Ports: f.protocols[p]})
	}
	return fw
}

func sameFirewall(cur *computepb.Firewall, want firewallRule) bool {
	if !slices.Equal(sortedCopy(cur.GetSourceRanges()), sortedCopy(want.sources)) || cur.GetDirection() != "INGRESS" {
		return false
	}
	if len(cur.GetAllowed()) != len(want.protocols) {
		return false
	}
	for _, al := range cur.GetAllowed() {
		ports, ok := want.protocols[al.GetIPProtocol()]
		if !ok || !slices.Equal(sortedCopy(al.GetPorts()), sortedCopy(ports)) {
			return false
		}
	}
	return true
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

func (a *applier) ensureFirewall(ctx context.Context, want firewallRule) error {
	cur, err := a.findFirewall(ctx, want.name)
	switch {
	case tfutil.IsNotFound(err):
		op, err := a.c.Firewalls.Insert(ctx, gcp.WithRequestID(&computepb.InsertFirewallRequest{Project: a.d.project, FirewallResource: want.proto()}))
		if err := a.wait(ctx, op, err); err != nil {
			return fmt.Errorf("creating firewall rule %s: %w", want.name, err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("reading firewall rule %s: %w", want.name, err)
	case sameFirewall(cur, want):
		return nil
	}
	op, err := a.c.Firewalls.Update(ctx, gcp.WithRequestID(&computepb.UpdateFirewallRequest{Project: a.d.project, Firewall: want.name, FirewallResource: want.proto()}))
	if err := a.wait(ctx, op, err); err != nil {
		return fmt.Errorf("updating firewall rule %s: %w", want.name, err)
	}
	return nil
}

func (a *applier) deleteFirewall(ctx context.Context, name string) error {
	op, err := a.c.Firewalls.Delete(ctx, gcp.WithRequestID(&computepb.DeleteFirewallRequest{Project: a.d.project, Firewall: name}))
	if err := gcp.IgnoreNotFound(a.wait(ctx, op, err)); err != nil {
		return fmt.Errorf("deleting firewall rule %s: %w", name, err)
	}
	return nil
}

// listFirewalls returns the names of the firewall rules whose names this network derives, in one
// list call instead of a GET per candidate rule.
func (a *applier) listFirewalls(ctx context.Context) (map[string]bool, error) {
	filter := fmt.Sprintf("name eq \"^%s-(allow-internal|allow-iap-ssh|gpu-[0-7]-internal)$\"", a.d.name)
	it := a.c.Firewalls.List(ctx, &computepb.ListFirewallsRequest{Project: a.d.project, Filter: proto.String(filter)})
	out := map[string]bool{}
	for {
		fw, err := it.Next()
		if err == iteratorDone {
			return out, nil
		}
		if err != nil {
			return nil, gcp.Classify(err)
		}
		out[fw.GetName()] = true
	}
}

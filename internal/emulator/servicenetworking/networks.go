package servicenetworking

import (
	"fmt"
	"net/netip"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/compute"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// Reader is read access to the store: a *core.Store outside a transaction, a *core.Tx inside one.
type Reader interface {
	Get(kind, key string, v any) (bool, error)
	List(kind, prefix string) []core.Record
}

// NetworkRef names a VPC network by project ID and network name.
type NetworkRef struct {
	Project string // project ID (or, for a project the emulator has never seen, the number it was named by)
	Name    string
}

// Key is the network's Compute store key and relative path.
func (n NetworkRef) Key() string { return "projects/" + n.Project + "/global/networks/" + n.Name }

// ConsumerNetwork is the network in the project-number form Service Networking answers with.
func (n NetworkRef) ConsumerNetwork() string {
	num := n.Project
	if !allDigits(num) {
		num = core.ProjectNumber(n.Project)
	}
	return "projects/" + num + "/global/networks/" + n.Name
}

// Exists reports whether the Compute API holds the network.
func (n NetworkRef) Exists(r Reader) bool {
	ok, _ := r.Get(compute.KindNetworks, n.Key(), nil)
	return ok
}

// ParseNetwork reads a network reference in any form the APIs accept: a bare name (in defaultProject),
// "global/networks/N", "projects/{id or number}/global/networks/N", or a Compute URL. A project number is
// mapped back to the project ID whose emulated number it is (core.ProjectNumber).
func ParseNetwork(r Reader, ref, defaultProject string) (NetworkRef, error) {
	rel := core.RelativePath(strings.TrimSpace(ref))
	parts := strings.Split(rel, "/")
	var n NetworkRef
	switch {
	case rel == "":
		return n, fmt.Errorf("network is empty")
	case len(parts) == 1:
		n = NetworkRef{Project: defaultProject, Name: parts[0]}
	case len(parts) == 3 && parts[0] == "global" && parts[1] == "networks":
		n = NetworkRef{Project: defaultProject, Name: parts[2]}
	case len(parts) == 5 && parts[0] == "projects" && parts[2] == "global" && parts[3] == "networks":
		n = NetworkRef{Project: parts[1], Name: parts[4]}
	default:
		return n, fmt.Errorf("network %q is not of the form projects/{project}/global/networks/{network}", ref)
	}
	if n.Project == "" || n.Name == "" || !core.ValidName(n.Name) {
		return n, fmt.Errorf("network %q is not of the form projects/{project}/global/networks/{network}", ref)
	}
	if allDigits(n.Project) {
		n.Project = projectIDForNumber(r, n.Project, defaultProject)
	}
	return n, nil
}

// projectIDForNumber finds the project whose emulated number is num among the default project and every
// project holding a network; an unknown number is kept as it is.
func projectIDForNumber(r Reader, num, defaultProject string) string {
	if defaultProject != "" && core.ProjectNumber(defaultProject) == num {
		return defaultProject
	}
	for _, rec := range r.List(compute.KindNetworks, "projects/") {
		p := strings.SplitN(rec.Key, "/", 3)[1]
		if core.ProjectNumber(p) == num {
			return p
		}
	}
	return num
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Range is an allocated range: a VPC_PEERING global address of the consumer network.
type Range struct {
	Name   string
	Prefix netip.Prefix
}

// lookupRange reads the allocated range name of network n. The error is the message Service Networking
// gives for a range the network does not have.
func lookupRange(r Reader, n NetworkRef, name string) (Range, error) {
	var a computepb.Address
	ok, err := r.Get(compute.KindGlobalAddresses, "projects/"+n.Project+"/global/addresses/"+name, &a)
	if err != nil || !ok || core.RelativePath(a.GetNetwork()) != n.Key() {
		return Range{}, fmt.Errorf("Allocated IP range '%s' not found in network.", name)
	}
	if a.GetPurpose() != "VPC_PEERING" {
		return Range{}, fmt.Errorf("Allocated IP range '%s' has purpose %s; private service access needs purpose VPC_PEERING.", name, orNone(a.GetPurpose()))
	}
	p, err := addressPrefix(&a)
	if err != nil {
		return Range{}, fmt.Errorf("Allocated IP range '%s' has no usable address: %v.", name, err)
	}
	return Range{Name: name, Prefix: p}, nil
}

func addressPrefix(a *computepb.Address) (netip.Prefix, error) {
	ip, err := netip.ParseAddr(a.GetAddress())
	if err != nil || !ip.Is4() {
		return netip.Prefix{}, fmt.Errorf("address %q is not an IPv4 address", a.GetAddress())
	}
	bits := int(a.GetPrefixLength())
	if bits <= 0 || bits > 32 {
		return netip.Prefix{}, fmt.Errorf("prefix length %d is out of range", bits)
	}
	return netip.PrefixFrom(ip, bits).Masked(), nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// subnetRanges returns the primary and secondary ranges of the network's subnetworks.
func subnetRanges(r Reader, n NetworkRef) []netip.Prefix {
	var out []netip.Prefix
	for _, rec := range r.List(compute.KindSubnetworks, "projects/"+n.Project+"/") {
		var sn computepb.Subnetwork
		if rec.Decode(&sn) != nil || core.RelativePath(sn.GetNetwork()) != n.Key() {
			continue
		}
		if p, err := netip.ParsePrefix(sn.GetIpCidrRange()); err == nil {
			out = append(out, p.Masked())
		}
		for _, sec := range sn.GetSecondaryIpRanges() {
			if p, err := netip.ParsePrefix(sec.GetIpCidrRange()); err == nil {
				out = append(out, p.Masked())
			}
		}
	}
	return out
}

// peeringRanges returns every VPC_PEERING range of the network, connected or not.
func peeringRanges(r Reader, n NetworkRef) []netip.Prefix {
	var out []netip.Prefix
	for _, rec := range r.List(compute.KindGlobalAddresses, "projects/"+n.Project+"/global/addresses/") {
		var a computepb.Address
		if rec.Decode(&a) != nil || a.GetPurpose() != "VPC_PEERING" || core.RelativePath(a.GetNetwork()) != n.Key() {
			continue
		}
		if p, err := addressPrefix(&a); err == nil {
			out = append(out, p)
		}
	}
	return out
}

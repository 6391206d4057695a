package network

import (
	"fmt"
	"net/netip"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

var gpuStacks = []string{string(catalog.NICTCPX), string(catalog.NICTCPXO), string(catalog.NICRDMA)}

func nameValidator() validator.String {
	return tfutil.StringCheck{Desc: "an RFC 1035 name of 1-48 characters", Check: func(s string) error {
		if err := catalog.ValidateResourceName(s); err != nil {
			return err
		}
		if len(s) > maxNameLength {
			return fmt.Errorf("%q is %d characters; the network name is at most %d so that derived names such as %q stay within Compute's 63", s, len(s), maxNameLength, s+"-gpu-7-subnet")
		}
		return nil
	}}
}

func regionValidator() validator.String {
	return tfutil.StringCheck{Desc: "a Compute Engine region", Check: func(s string) error {
		if !slices.Contains(catalog.Regions(), s) {
			return fmt.Errorf("%q is not a known region (for example us-central1, europe-west4)", s)
		}
		return nil
	}}
}

func zoneValidator() validator.String {
	return tfutil.StringCheck{Desc: "a Compute Engine zone", Check: func(s string) error {
		if _, ok := catalog.Zone(s); !ok {
			return fmt.Errorf("%q is not a known zone (for example us-central1-a)", s)
		}
		return nil
	}}
}

func ipv4Validator() validator.String {
	return tfutil.StringCheck{Desc: "an IPv4 address", Check: func(s string) error {
		a, err := netip.ParseAddr(s)
		if err != nil || !a.Is4() {
			return fmt.Errorf("%q is not an IPv4 address", s)
		}
		return nil
	}}
}

// privateRanges are the ranges a VPC subnet may use without privately used public IPs,
// which a training cluster never needs.
var privateRanges = []netip.Prefix{
	netip.MustParsePrefix("10.0.0.0/8"),
	netip.MustParsePrefix("172.16.0.0/12"),
	netip.MustParsePrefix("192.168.0.0/16"),
	netip.MustParsePrefix("100.64.0.0/10"),
}

// parseCIDR checks a subnet range the way Compute does: canonical form (no host bits), prefix bounds,
// inside a private range.
func parseCIDR(s string, minBits, maxBits int) (netip.Prefix, error) {
	p, err := netip.ParsePrefix(s)
	if err != nil || !p.Addr().Is4() {
		return netip.Prefix{}, fmt.Errorf("%q is not an IPv4 CIDR such as 10.0.0.0/20", s)
	}
	if p.Masked() != p {
		return netip.Prefix{}, fmt.Errorf("%q has host bits set; did you mean %s?", s, p.Masked())
	}
	if p.Bits() < minBits || p.Bits() > maxBits {
		return netip.Prefix{}, fmt.Errorf("%q has prefix length /%d; it must be between /%d and /%d", s, p.Bits(), minBits, maxBits)
	}
	for _, r := range privateRanges {
		if r.Bits() <= p.Bits() && r.Contains(p.Addr()) {
			return p, nil
		}
	}
	return netip.Prefix{}, fmt.Errorf("%q is not inside a private range (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10)", s)
}

func cidrValidator(minBits, maxBits int) validator.String {
	return tfutil.StringCheck{Desc: fmt.Sprintf("a private IPv4 CIDR between /%d and /%d", minBits, maxBits), Check: func(s string) error {
		_, err := parseCIDR(s, minBits, maxBits)
		return err
	}}
}

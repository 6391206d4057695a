package compute

import (
	"fmt"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// Cloud NAT types: PUBLIC (the default) translates to external NAT IPs; PRIVATE (Private NAT, between VPC
// networks or to Network Connectivity Center spokes) translates to ranges of subnets with purpose PRIVATE_NAT,
// named by its rules' action.sourceNatActiveRanges, and takes no NAT IPs and no endpoint-independent mapping.
const (
	natPublic  = "PUBLIC"
	natPrivate = "PRIVATE"
)

// validateNatKind checks what depends on the NAT's type, defaults it to PUBLIC and resolves the subnetworks its
// rules name.
func (s *Service) validateNatKind(nat *computepb.RouterNat, field, project, region string) *core.APIError {
	if nat.Type == nil {
		nat.Type = proto.String(natPublic)
	}
	switch nat.GetType() {
	case natPublic:
	case natPrivate:
		if nat.NatIpAllocateOption != nil {
			return core.InvalidField(field+".natIpAllocateOption", nat.GetNatIpAllocateOption(), "Private NAT does not allocate NAT IPs; leave natIpAllocateOption unset.")
		}
		if len(nat.NatIps) > 0 {
			return core.InvalidField(field+".natIps", nat.NatIps[0], "Private NAT does not use NAT IPs.")
		}
		if nat.GetEnableEndpointIndependentMapping() {
			return core.InvalidField(field+".enableEndpointIndependentMapping", "true", "Private NAT does not support endpoint-independent mapping.")
		}
	default:
		return core.InvalidField(field+".type", nat.GetType(), "Must be PUBLIC or PRIVATE.")
	}
	numbers := map[uint32]bool{}
	for i, rule := range nat.Rules {
		f := fmt.Sprintf("%s.rules[%d]", field, i)
		if rule.RuleNumber == nil {
			return core.Required(f + ".ruleNumber")
		}
		if numbers[rule.GetRuleNumber()] {
			return core.InvalidField(f+".ruleNumber", fmt.Sprint(rule.GetRuleNumber()), "Rule numbers must be unique within a NAT.")
		}
		numbers[rule.GetRuleNumber()] = true
		if rule.GetMatch() == "" {
			return core.Required(f + ".match")
		}
		act := rule.GetAction()
		if nat.GetType() == natPrivate {
			if len(act.GetSourceNatActiveIps()) > 0 || len(act.GetSourceNatDrainIps()) > 0 {
				return core.InvalidField(f+".action.sourceNatActiveIps", "", "Private NAT rules name subnetworks (sourceNatActiveRanges), not IPs.")
			}
			if len(act.GetSourceNatActiveRanges()) == 0 {
				return core.Required(f + ".action.sourceNatActiveRanges")
			}
		} else if len(act.GetSourceNatActiveRanges()) > 0 || len(act.GetSourceNatDrainRanges()) > 0 {
			return core.InvalidField(f+".action.sourceNatActiveRanges", "", "Only Private NAT rules name subnetworks.")
		}
		if act == nil {
			continue
		}
		for _, list := range []*[]string{&act.SourceNatActiveRanges, &act.SourceNatDrainRanges} {
			for j, ref := range *list {
				key := resolveRef(project, "regions/"+region, "subnetworks", ref)
				var sub computepb.Subnetwork
				if ok, _ := s.Store.Get(KindSubnetworks, key, &sub); !ok {
					return core.NotFound(key)
				}
				if sub.GetPurpose() != "PRIVATE_NAT" {
					return core.InvalidField(fmt.Sprintf("%s.action.sourceNatActiveRanges[%d]", f, j), ref, "The subnetwork's purpose must be PRIVATE_NAT.")
				}
				(*list)[j] = sub.GetSelfLink()
			}
		}
	}
	return nil
}

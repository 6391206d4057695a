package compute

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// patchSubnet applies a merge patch guarded by the subnet's fingerprint. The fields Google lets patch change
// are the flow-log settings, Private Google Access, secondary ranges and an expansion of the primary range.
func (s *Service) patchSubnet(w http.ResponseWriter, r *http.Request) {
	key, before, ok := s.subnetFromPath(w, r)
	if !ok {
		return
	}
	var patch json.RawMessage
	if e := core.ReadJSON(r, &patch); e != nil {
		fail(w, r, e)
		return
	}
	var probe computepb.Subnetwork
	if e := core.ReadJSONBytes(patch, &probe); e != nil {
		fail(w, r, e)
		return
	}
	if probe.GetFingerprint() != before.GetFingerprint() {
		fail(w, r, core.ConditionNotMet("Supplied fingerprint does not match current subnetwork fingerprint."))
		return
	}
	old, _ := s.Store.GetRaw(KindSubnetworks, key)
	merged, err := core.MergePatch(old, patch)
	if err != nil {
		fail(w, r, core.Invalid("Invalid JSON payload received. "+err.Error()))
		return
	}
	var after computepb.Subnetwork
	if err := core.Decode(merged, &after); err != nil {
		fail(w, r, core.Invalid("Invalid JSON payload received. "+err.Error()))
		return
	}
	for field, changed := range map[string]bool{
		"name":    after.GetName() != before.GetName(),
		"network": core.RelativePath(after.GetNetwork()) != core.RelativePath(before.GetNetwork()),
		"region":  core.RelativePath(after.GetRegion()) != core.RelativePath(before.GetRegion()),
	} {
		if changed {
			fail(w, r, core.InvalidField("resource."+field, "", "This field cannot be changed."))
			return
		}
	}
	if e := checkExpansion(before.GetIpCidrRange(), after.GetIpCidrRange()); e != nil {
		fail(w, r, e)
		return
	}
	netKey := core.RelativePath(before.GetNetwork())
	if e := validateSubnetRanges(&after, takenRanges(func(k string) []core.Record { return s.Store.List(k, "") }, netKey), key); e != nil {
		fail(w, r, e)
		return
	}
	s.commitSubnetChange(w, r, key, before, "patch", func(cur *computepb.Subnetwork) {
		cur.IpCidrRange = after.IpCidrRange
		cur.SecondaryIpRanges = after.SecondaryIpRanges
		cur.PrivateIpGoogleAccess = after.PrivateIpGoogleAccess
		cur.PrivateIpv6GoogleAccess = after.PrivateIpv6GoogleAccess
		cur.LogConfig = after.LogConfig
		cur.EnableFlowLogs = after.EnableFlowLogs
		cur.Description = after.Description
		cur.StackType = after.StackType
	})
}

// checkExpansion allows a primary range to stay or to grow from the same start address (expandIpCidrRange).
func checkExpansion(from, to string) *core.APIError {
	if from == to {
		return nil
	}
	oldP, err1 := netip.ParsePrefix(from)
	newP, err2 := parseSubnetCIDR(to)
	if err2 != nil {
		return core.InvalidField("resource.ipCidrRange", to, "Invalid IPCidrRange: "+err2.Error()+".")
	}
	if err1 != nil || newP.Bits() >= oldP.Bits() || !newP.Contains(oldP.Addr()) {
		return core.InvalidField("resource.ipCidrRange", to, fmt.Sprintf("The new range must contain the current range %s and be larger; subnet ranges can only be expanded.", from))
	}
	return nil
}

// commitSubnetChange starts the operation that applies change to the subnet and gives it a new fingerprint.
func (s *Service) commitSubnetChange(w http.ResponseWriter, r *http.Request, key string, before *computepb.Subnetwork, opType string, change func(cur *computepb.Subnetwork)) {
	answerOp(w, s.opFor(r, key, opType, before.GetId(), func(tx *core.Tx, _ *computepb.Operation) error {
		var cur computepb.Subnetwork
		if ok, _ := tx.Get(KindSubnetworks, key, &cur); !ok {
			return core.OpNotFound(key)
		}
		if cur.GetFingerprint() != before.GetFingerprint() {
			return core.NewOpError(412, "CONDITION_NOT_MET", "Supplied fingerprint does not match current subnetwork fingerprint.")
		}
		change(&cur)
		if p, err := netip.ParsePrefix(cur.GetIpCidrRange()); err == nil {
			cur.GatewayAddress = proto.String(gatewayOf(p))
		}
		cur.Fingerprint = proto.String(s.newFingerprint())
		return tx.Put(KindSubnetworks, key, &cur)
	}))
}

func (s *Service) expandSubnet(w http.ResponseWriter, r *http.Request) {
	key, before, ok := s.subnetFromPath(w, r)
	if !ok {
		return
	}
	var req computepb.SubnetworksExpandIpCidrRangeRequest
	if !decode(w, r, &req) {
		return
	}
	if e := checkExpansion(before.GetIpCidrRange(), req.GetIpCidrRange()); e != nil {
		fail(w, r, e)
		return
	}
	if req.GetIpCidrRange() == before.GetIpCidrRange() {
		fail(w, r, core.InvalidField("ipCidrRange", req.GetIpCidrRange(), "The new range must be larger than the current range."))
		return
	}
	after := proto.Clone(before).(*computepb.Subnetwork)
	after.IpCidrRange = req.IpCidrRange
	if e := validateSubnetRanges(after, takenRanges(func(k string) []core.Record { return s.Store.List(k, "") }, core.RelativePath(before.GetNetwork())), key); e != nil {
		fail(w, r, e)
		return
	}
	s.commitSubnetChange(w, r, key, before, "expandIpCidrRange", func(cur *computepb.Subnetwork) { cur.IpCidrRange = req.IpCidrRange })
}

func (s *Service) setPrivateIPGoogleAccess(w http.ResponseWriter, r *http.Request) {
	key, before, ok := s.subnetFromPath(w, r)
	if !ok {
		return
	}
	var req computepb.SubnetworksSetPrivateIpGoogleAccessRequest
	if !decode(w, r, &req) {
		return
	}
	s.commitSubnetChange(w, r, key, before, "setPrivateIpGoogleAccess", func(cur *computepb.Subnetwork) {
		cur.PrivateIpGoogleAccess = proto.Bool(req.GetPrivateIpGoogleAccess())
	})
}

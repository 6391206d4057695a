package instances

import (
	"fmt"
	"net/http"
	"slices"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// Changes to a VM's network interfaces: access configs (external addresses) and updateNetworkInterface.

const nicFingerprint = "Supplied fingerprint does not match current network interface fingerprint."

// nicFor finds the interface the networkInterface query parameter names (required).
func nicFor(w http.ResponseWriter, r *http.Request, inst *computepb.Instance) (int, bool) {
	name := r.URL.Query().Get("networkInterface")
	if name == "" {
		fail(w, r, core.Required("networkInterface"))
		return 0, false
	}
	i := nicIndex(inst, name)
	if i < 0 {
		fail(w, r, core.InvalidField("networkInterface", name, "The instance has no network interface of that name."))
		return 0, false
	}
	return i, true
}

func nicIndex(inst *computepb.Instance, name string) int {
	return slices.IndexFunc(inst.GetNetworkInterfaces(), func(n *computepb.NetworkInterface) bool { return n.GetName() == name })
}

func (s *Service) addAccessConfig(w http.ResponseWriter, r *http.Request) {
	ac := &computepb.AccessConfig{}
	if _, err := readBody(r, ac); err != nil {
		fail(w, r, err)
		return
	}
	key, inst, ok := s.instanceFor(w, r)
	if !ok {
		return
	}
	i, ok := nicFor(w, r, inst)
	if !ok {
		return
	}
	if t := ac.GetType(); t != "" && t != "ONE_TO_ONE_NAT" {
		fail(w, r, core.InvalidField("resource.type", t, "Must be ONE_TO_ONE_NAT."))
		return
	}
	if len(inst.GetNetworkInterfaces()[i].GetAccessConfigs()) > 0 {
		fail(w, r, core.Invalid("At most one access config currently supported."))
		return
	}
	ac.Kind = proto.String("compute#accessConfig")
	ac.Type = proto.String("ONE_TO_ONE_NAT")
	if ac.Name == nil {
		ac.Name = proto.String("External NAT")
	}
	if ac.NetworkTier == nil {
		ac.NetworkTier = proto.String("PREMIUM")
	}
	nicName := inst.GetNetworkInterfaces()[i].GetName()
	op := s.mutateOp(r, key, "addAccessConfig", inst.GetId(), func(tx *core.Tx, inst *computepb.Instance) error {
		j := nicIndex(inst, nicName)
		if j < 0 || len(inst.NetworkInterfaces[j].AccessConfigs) > 0 {
			return core.NewOpError(400, "INVALID_USAGE", "At most one access config currently supported.")
		}
		if ac.NatIP == nil {
			ac.NatIP = proto.String(externalIP(inst.GetId(), j*8))
		}
		inst.NetworkInterfaces[j].AccessConfigs = []*computepb.AccessConfig{ac}
		inst.NetworkInterfaces[j].Fingerprint = proto.String(s.randomFingerprint())
		return nil
	}, nil)
	core.WriteJSON(w, http.StatusOK, op)
}

func (s *Service) deleteAccessConfig(w http.ResponseWriter, r *http.Request) {
	acName := r.URL.Query().Get("accessConfig")
	if acName == "" {
		fail(w, r, core.Required("accessConfig"))
		return
	}
	key, inst, ok := s.instanceFor(w, r)
	if !ok {
		return
	}
	i, ok := nicFor(w, r, inst)
	if !ok {
		return
	}
	has := func(nic *computepb.NetworkInterface) int {
		return slices.IndexFunc(nic.GetAccessConfigs(), func(ac *computepb.AccessConfig) bool { return ac.GetName() == acName })
	}
	nic := inst.GetNetworkInterfaces()[i]
	if has(nic) < 0 {
		fail(w, r, core.InvalidField("accessConfig", acName, fmt.Sprintf("Network interface '%s' has no access config of that name.", nic.GetName())))
		return
	}
	nicName := nic.GetName()
	op := s.mutateOp(r, key, "deleteAccessConfig", inst.GetId(), func(tx *core.Tx, inst *computepb.Instance) error {
		j := nicIndex(inst, nicName)
		if j < 0 || has(inst.NetworkInterfaces[j]) < 0 {
			return core.NewOpError(400, "INVALID_FIELD_VALUE", fmt.Sprintf("Invalid value for field 'accessConfig': '%s'. Network interface '%s' has no access config of that name.", acName, nicName))
		}
		n := inst.NetworkInterfaces[j]
		n.AccessConfigs = slices.Delete(n.AccessConfigs, has(n), has(n)+1)
		n.Fingerprint = proto.String(s.randomFingerprint())
		return nil
	}, nil)
	core.WriteJSON(w, http.StatusOK, op)
}

// updateNetworkInterface is a patch of one interface guarded by its fingerprint (412 when stale). Alias IP ranges
// and access configs change on a running VM; moving the interface to another network needs a stopped one.
func (s *Service) updateNetworkInterface(w http.ResponseWriter, r *http.Request) {
	patch := &computepb.NetworkInterface{}
	if _, err := readBody(r, patch); err != nil {
		fail(w, r, err)
		return
	}
	key, inst, ok := s.instanceFor(w, r)
	if !ok {
		return
	}
	i, ok := nicFor(w, r, inst)
	if !ok {
		return
	}
	cur := inst.GetNetworkInterfaces()[i]
	if patch.GetFingerprint() != cur.GetFingerprint() {
		fail(w, r, core.ConditionNotMet(nicFingerprint))
		return
	}
	project, zone, _, _ := ParseInstanceKey(key)
	moves := func(ref, now, collection, scope string) bool {
		return ref != "" && core.SelfLink(resolveRef(project, scope, collection, ref)) != now
	}
	region, _ := catalog.RegionOf(zone)
	if moves(patch.GetNetwork(), cur.GetNetwork(), "networks", "global") || moves(patch.GetSubnetwork(), cur.GetSubnetwork(), "subnetworks", "regions/"+region) {
		if inst.GetStatus() != statusTerminated {
			fail(w, r, notStopped())
			return
		}
		// Moving an interface reassigns its address; the emulator does not model that yet.
		fail(w, r, core.InvalidField("resource.network", patch.GetNetwork()+patch.GetSubnetwork(), fmt.Sprintf("Changing the network of '%s' in zone '%s' is not supported by the local cloud.", cur.GetName(), zone)))
		return
	}
	if len(patch.GetAccessConfigs()) > 1 {
		fail(w, r, core.Invalid("At most one access config currently supported."))
		return
	}
	nicName, fp := cur.GetName(), cur.GetFingerprint()
	op := s.mutateOp(r, key, "updateNetworkInterface", inst.GetId(), func(tx *core.Tx, inst *computepb.Instance) error {
		j := nicIndex(inst, nicName)
		if j < 0 || inst.NetworkInterfaces[j].GetFingerprint() != fp {
			return core.NewOpError(412, "CONDITION_NOT_MET", nicFingerprint)
		}
		n := inst.NetworkInterfaces[j]
		n.AliasIpRanges = patch.GetAliasIpRanges()
		if patch.AccessConfigs != nil {
			for _, ac := range patch.AccessConfigs {
				ac.Kind = proto.String("compute#accessConfig")
				ac.Type = proto.String("ONE_TO_ONE_NAT")
				if ac.Name == nil {
					ac.Name = proto.String("External NAT")
				}
				if ac.NetworkTier == nil {
					ac.NetworkTier = proto.String("PREMIUM")
				}
				if ac.NatIP == nil {
					ac.NatIP = proto.String(externalIP(inst.GetId(), j*8))
				}
			}
			n.AccessConfigs = patch.AccessConfigs
		}
		if patch.StackType != nil {
			n.StackType = patch.StackType
		}
		n.Fingerprint = proto.String(s.randomFingerprint())
		return nil
	}, nil)
	core.WriteJSON(w, http.StatusOK, op)
}

package instances

import (
	"fmt"
	"net/http"
	"regexp"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// Resource policies (regional). Only group placement policies affect instances: COLLOCATED forces
// onHostMaintenance TERMINATE, is refused for machine types without compact placement, and holds at most vmCount
// VMs.

func (s *Service) policyRoutes() {
	p := prefix + "/regions/{region}/resourcePolicies"
	s.handle("POST "+p, "compute.resourcePolicies.insert", core.Mutating, s.insertPolicy)
	s.handle("GET "+p+"/{policy}", "compute.resourcePolicies.get", core.Read, s.getPolicy)
	s.handle("GET "+p, "compute.resourcePolicies.list", core.Read, s.listPolicies)
	s.handle("DELETE "+p+"/{policy}", "compute.resourcePolicies.delete", core.Mutating, s.deletePolicy)
	s.handle("GET "+prefix+"/aggregated/resourcePolicies", "compute.resourcePolicies.aggregatedList", core.Read, s.aggregatedPolicies)
}

func policyKey(project, region, name string) string {
	return fmt.Sprintf("projects/%s/regions/%s/resourcePolicies/%s", project, region, name)
}

var gpuTopologyRE = regexp.MustCompile(`^[1-9][0-9]*(x[1-9][0-9]*){1,2}$`)

func validatePolicy(p *computepb.ResourcePolicy) *core.APIError {
	kinds := 0
	for _, set := range []bool{p.GroupPlacementPolicy != nil, p.InstanceSchedulePolicy != nil, p.SnapshotSchedulePolicy != nil,
		p.DiskConsistencyGroupPolicy != nil, p.WorkloadPolicy != nil} {
		if set {
			kinds++
		}
	}
	if kinds != 1 {
		return core.Invalid("Invalid resource policy: exactly one of groupPlacementPolicy, instanceSchedulePolicy, snapshotSchedulePolicy, diskConsistencyGroupPolicy or workloadPolicy must be set.")
	}
	g := p.GroupPlacementPolicy
	if g == nil {
		return nil
	}
	f := "resource.groupPlacementPolicy"
	switch g.GetCollocation() {
	case "", "COLLOCATED", "UNSPECIFIED_COLLOCATION":
	default:
		return core.InvalidField(f+".collocation", g.GetCollocation(), "Must be COLLOCATED or UNSPECIFIED_COLLOCATION.")
	}
	if g.VmCount != nil && (g.GetVmCount() < 1 || g.GetVmCount() > catalog.MaxCompactPlacementVMs) {
		return core.InvalidField(f+".vmCount", fmt.Sprint(g.GetVmCount()), fmt.Sprintf("Must be between 1 and %d.", catalog.MaxCompactPlacementVMs))
	}
	if g.AvailabilityDomainCount != nil {
		if g.GetAvailabilityDomainCount() < 1 || g.GetAvailabilityDomainCount() > 8 {
			return core.InvalidField(f+".availabilityDomainCount", fmt.Sprint(g.GetAvailabilityDomainCount()), "Must be between 1 and 8.")
		}
		if g.GetCollocation() == "COLLOCATED" {
			return core.InvalidField(f+".availabilityDomainCount", fmt.Sprint(g.GetAvailabilityDomainCount()), "Cannot be combined with collocation COLLOCATED.")
		}
	}
	if t := g.GetGpuTopology(); t != "" && !gpuTopologyRE.MatchString(t) {
		return core.InvalidField(f+".gpuTopology", t, "Must look like '1x72'.")
	}
	switch g.GetAcceleratorTopologyMode() {
	case "", "AUTO_CONNECT", "PROVISION_ONLY":
	default:
		return core.InvalidField(f+".acceleratorTopologyMode", g.GetAcceleratorTopologyMode(), "Must be AUTO_CONNECT or PROVISION_ONLY.")
	}
	if (g.GetGpuTopology() != "" || g.GetAcceleratorTopologyMode() != "") && g.GetCollocation() != "COLLOCATED" {
		return core.InvalidField(f+".gpuTopology", g.GetGpuTopology(), "GPU topology needs collocation COLLOCATED.")
	}
	return nil
}

func (s *Service) insertPolicy(w http.ResponseWriter, r *http.Request) {
	region, ok := s.region(w, r)
	if !ok {
		return
	}
	project := r.PathValue("project")
	p := &computepb.ResourcePolicy{}
	if _, err := readBody(r, p); err != nil {
		fail(w, r, err)
		return
	}
	if err := core.ValidateName("resource.name", p.GetName()); err != nil {
		fail(w, r, err)
		return
	}
	key := policyKey(project, region, p.GetName())
	if s.Store.Exists(KindResourcePolicies, key) {
		fail(w, r, core.AlreadyExists(key))
		return
	}
	if err := validatePolicy(p); err != nil {
		fail(w, r, err)
		return
	}
	p.Kind = proto.String("compute#resourcePolicy")
	p.Id = proto.Uint64(s.Rand.ID())
	p.CreationTimestamp = proto.String(core.Timestamp(s.Now()))
	p.SelfLink = proto.String(core.SelfLink(key))
	p.Region = proto.String(core.SelfLink(fmt.Sprintf("projects/%s/regions/%s", project, region)))
	p.Status = proto.String("READY")
	op := s.Ops.StartCompute(r, core.ComputeOp{
		Project: project, Region: region, OperationType: "insert", TargetLink: key, TargetID: p.GetId(),
		Apply: func(tx *core.Tx, _ *computepb.Operation) error {
			if tx.Exists(KindResourcePolicies, key) {
				return core.OpAlreadyExists(key)
			}
			return tx.Put(KindResourcePolicies, key, p)
		},
	})
	core.WriteJSON(w, http.StatusOK, op)
}

func (s *Service) getPolicy(w http.ResponseWriter, r *http.Request) {
	region, ok := s.region(w, r)
	if !ok {
		return
	}
	s.getRaw(w, r, KindResourcePolicies, policyKey(r.PathValue("project"), region, r.PathValue("policy")))
}

func (s *Service) listPolicies(w http.ResponseWriter, r *http.Request) {
	region, ok := s.region(w, r)
	if !ok {
		return
	}
	s.list(w, r, "compute#resourcePolicyList", KindResourcePolicies, fmt.Sprintf("projects/%s/regions/%s/resourcePolicies/", r.PathValue("project"), region))
}

func (s *Service) aggregatedPolicies(w http.ResponseWriter, r *http.Request) {
	s.aggregated(w, r, "compute#resourcePolicyAggregatedList", "resourcePolicies", s.Store.List(KindResourcePolicies, "projects/"+r.PathValue("project")+"/"), regionScopes())
}

func (s *Service) deletePolicy(w http.ResponseWriter, r *http.Request) {
	region, ok := s.region(w, r)
	if !ok {
		return
	}
	project := r.PathValue("project")
	key := policyKey(project, region, r.PathValue("policy"))
	var p computepb.ResourcePolicy
	if found, _ := s.Store.Get(KindResourcePolicies, key, &p); !found {
		fail(w, r, core.NotFound(key))
		return
	}
	if users := s.index.policyMembers(key); len(users) > 0 {
		fail(w, r, core.ResourceInUse(key, core.SelfLink(users[0])))
		return
	}
	op := s.Ops.StartCompute(r, core.ComputeOp{
		Project: project, Region: region, OperationType: "delete", TargetLink: key, TargetID: p.GetId(),
		Apply: func(tx *core.Tx, _ *computepb.Operation) error {
			if !tx.Delete(KindResourcePolicies, key) {
				return core.OpNotFound(key)
			}
			return nil
		},
	})
	core.WriteJSON(w, http.StatusOK, op)
}

// checkPlacementRoom refuses to add n VMs to a placement policy already holding vmCount VMs.
func (s *Service) checkPlacementRoom(inst *computepb.Instance, n int, field string) *core.APIError {
	for _, ref := range inst.GetResourcePolicies() {
		key := core.RelativePath(ref)
		var p computepb.ResourcePolicy
		if ok, _ := s.Store.Get(KindResourcePolicies, key, &p); !ok || p.GetGroupPlacementPolicy().VmCount == nil {
			continue
		}
		limit := int(p.GetGroupPlacementPolicy().GetVmCount())
		if have := len(s.index.policyMembers(key)); have+n > limit {
			return core.InvalidField(field+".resourcePolicies", ref,
				fmt.Sprintf("The placement policy holds at most %d VMs; it has %d and the request adds %d.", limit, have, n))
		}
	}
	return nil
}

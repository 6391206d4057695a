package instances

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// The instances.set* methods Terraform's google provider and gcloud call to change a VM in place. Compute takes
// setMachineType, setServiceAccount and setMinCpuPlatform only on a stopped VM; the others apply to a running
// one. Each answers a zonal operation; the change lands when the operation is DONE.

// notStopped is Compute's answer to a change that needs a stopped VM: Google's own Node.js client matches the
// message "Instance is starting or running." to decide to stop the VM and retry. The reason string
// (resourceNotReady, as for the other status preconditions here) is UNCONFIRMED against recorded traffic.
func notStopped() *core.APIError {
	return core.BadRequest("resourceNotReady", "Instance is starting or running.")
}

const tagsFingerprint = "Supplied fingerprint does not match current tags fingerprint."

func (s *Service) setRoutes() {
	for verb, h := range map[string]http.HandlerFunc{
		"setMachineType":        s.setMachineType,
		"setServiceAccount":     s.setServiceAccount,
		"setMinCpuPlatform":     s.setMinCpuPlatform,
		"setScheduling":         s.setScheduling,
		"setTags":               s.setTags,
		"setDeletionProtection": s.setDeletionProtection,
		"attachDisk":            s.attachDisk,
		"detachDisk":            s.detachDisk,
		"addAccessConfig":       s.addAccessConfig,
		"deleteAccessConfig":    s.deleteAccessConfig,
	} {
		s.handle("POST "+instancePath+"/{instance}/"+verb, "compute.instances."+verb, core.Mutating, h)
	}
	s.handle("PATCH "+instancePath+"/{instance}/updateNetworkInterface", "compute.instances.updateNetworkInterface", core.Mutating, s.updateNetworkInterface)
}

// stoppedInstanceFor is instanceFor for a call Compute takes only on a TERMINATED VM.
func (s *Service) stoppedInstanceFor(w http.ResponseWriter, r *http.Request) (string, *computepb.Instance, bool) {
	key, inst, ok := s.instanceFor(w, r)
	if ok && inst.GetStatus() != statusTerminated {
		fail(w, r, notStopped())
		return "", nil, false
	}
	return key, inst, ok
}

// stillStopped fails the operation of such a call when the VM was started before it ran.
func stillStopped(inst *computepb.Instance) error {
	if inst.GetStatus() != statusTerminated {
		return core.NewOpError(400, "RESOURCE_NOT_READY", "Instance is starting or running.")
	}
	return nil
}

// planFor is the plan of an existing VM (machine type and location) for the checks instance creation makes.
func planFor(key string, mt catalog.MachineType) *plan {
	project, zone, _, _ := ParseInstanceKey(key)
	region, _ := catalog.RegionOf(zone)
	return &plan{project: project, zone: zone, region: region, mt: mt}
}

func (s *Service) setMachineType(w http.ResponseWriter, r *http.Request) {
	req := &computepb.InstancesSetMachineTypeRequest{}
	if _, err := readBody(r, req); err != nil {
		fail(w, r, err)
		return
	}
	key, inst, ok := s.stoppedInstanceFor(w, r)
	if !ok {
		return
	}
	project, zone, _, _ := ParseInstanceKey(key)
	mt, apiErr := resolveMachineType("machineType", req.GetMachineType(), zone)
	if apiErr != nil {
		fail(w, r, apiErr)
		return
	}
	// A machine type with GPUs cannot live-migrate: the VM's scheduling must already say TERMINATE.
	if mt.HasGPU() && inst.GetScheduling().GetOnHostMaintenance() == catalog.MaintenanceMigrate {
		fail(w, r, core.InvalidField("scheduling.onHostMaintenance", catalog.MaintenanceMigrate, "Instances with guest accelerators do not support live migration."))
		return
	}
	op := s.mutateOp(r, key, "setMachineType", inst.GetId(), func(tx *core.Tx, inst *computepb.Instance) error {
		if err := stillStopped(inst); err != nil {
			return err
		}
		inst.MachineType = proto.String(core.SelfLink(fmt.Sprintf("projects/%s/zones/%s/machineTypes/%s", project, zone, mt.Name)))
		inst.CpuPlatform = proto.String(cpuPlatform(mt))
		inst.GuestAccelerators = nil
		if mt.HasGPU() {
			inst.GuestAccelerators = []*computepb.AcceleratorConfig{{
				AcceleratorCount: proto.Int32(int32(mt.GPU.Count)),
				AcceleratorType:  proto.String(core.SelfLink(fmt.Sprintf("projects/%s/zones/%s/acceleratorTypes/%s", project, zone, mt.GPU.Type))),
			}}
		}
		// What the VM holds in quota follows its machine type.
		if err := s.releaseCharge(tx, key); err != nil {
			return err
		}
		if err := s.acquire(tx, key, inst); err != nil {
			return err
		}
		inst.Fingerprint = proto.String(s.randomFingerprint())
		return nil
	}, nil)
	core.WriteJSON(w, http.StatusOK, op)
}

func (s *Service) setServiceAccount(w http.ResponseWriter, r *http.Request) {
	req := &computepb.InstancesSetServiceAccountRequest{}
	if _, err := readBody(r, req); err != nil {
		fail(w, r, err)
		return
	}
	key, inst, ok := s.stoppedInstanceFor(w, r)
	if !ok {
		return
	}
	project, _, _, _ := ParseInstanceKey(key)
	email := req.GetEmail()
	if email == "default" {
		email = defaultServiceAccount(project)
	}
	op := s.mutateOp(r, key, "setServiceAccount", inst.GetId(), func(tx *core.Tx, inst *computepb.Instance) error {
		if err := stillStopped(inst); err != nil {
			return err
		}
		// An empty email and no scopes removes the service account, as gcloud --no-service-account does.
		inst.ServiceAccounts = nil
		if email != "" || len(req.GetScopes()) > 0 {
			inst.ServiceAccounts = []*computepb.ServiceAccount{{Email: proto.String(firstNonEmpty(email, defaultServiceAccount(project))), Scopes: req.GetScopes()}}
		}
		inst.Fingerprint = proto.String(s.randomFingerprint())
		return nil
	}, nil)
	core.WriteJSON(w, http.StatusOK, op)
}

// cpuPlatforms are the minCpuPlatform values Compute knows (its CPU platforms page).
var cpuPlatforms = []string{"Intel Broadwell", "Intel Skylake", "Intel Cascade Lake", "Intel Ice Lake", "Intel Sapphire Rapids",
	"Intel Emerald Rapids", "Intel Granite Rapids", "AMD Rome", "AMD Milan", "AMD Genoa", "AMD Turin", "Ampere Altra",
	"Google Axion", "NVIDIA Grace"}

func (s *Service) setMinCpuPlatform(w http.ResponseWriter, r *http.Request) {
	req := &computepb.InstancesSetMinCpuPlatformRequest{}
	if _, err := readBody(r, req); err != nil {
		fail(w, r, err)
		return
	}
	key, inst, ok := s.stoppedInstanceFor(w, r)
	if !ok {
		return
	}
	platform := req.GetMinCpuPlatform()
	name, _ := machineTypeName(inst.GetMachineType())
	mt, _ := catalog.Machine(name)
	if platform != "" && platform != "Automatic" && !slices.Contains(cpuPlatforms, platform) && platform != cpuPlatform(mt) {
		fail(w, r, core.InvalidField("minCpuPlatform", platform, fmt.Sprintf("CPU platform '%s' is not available for machine type '%s'.", platform, name)))
		return
	}
	op := s.mutateOp(r, key, "setMinCpuPlatform", inst.GetId(), func(tx *core.Tx, inst *computepb.Instance) error {
		if err := stillStopped(inst); err != nil {
			return err
		}
		inst.MinCpuPlatform = nil
		if platform != "" {
			inst.MinCpuPlatform = proto.String(platform)
		}
		inst.Fingerprint = proto.String(s.randomFingerprint())
		return nil
	}, nil)
	core.WriteJSON(w, http.StatusOK, op)
}

// setScheduling replaces the VM's scheduling; the request is checked as at creation (a GPU VM cannot MIGRATE,
// a Spot VM cannot restart automatically, ...).
func (s *Service) setScheduling(w http.ResponseWriter, r *http.Request) {
	sc := &computepb.Scheduling{}
	if _, err := readBody(r, sc); err != nil {
		fail(w, r, err)
		return
	}
	key, inst, ok := s.instanceFor(w, r)
	if !ok {
		return
	}
	// Fields the request leaves out keep the VM's provisioning model: setScheduling does not turn a Spot or
	// flex-start VM into a standard one.
	if cur := inst.GetScheduling(); sc.ProvisioningModel == nil && sc.Preemptible == nil {
		sc.ProvisioningModel, sc.Preemptible = cur.ProvisioningModel, cur.Preemptible
		if sc.InstanceTerminationAction == nil {
			sc.InstanceTerminationAction = cur.InstanceTerminationAction
		}
		if sc.MaxRunDuration == nil {
			sc.MaxRunDuration = cur.MaxRunDuration
		}
	}
	name, _ := machineTypeName(inst.GetMachineType())
	mt, _ := catalog.Machine(name)
	p := planFor(key, mt)
	probe := &computepb.Instance{Scheduling: sc, ResourcePolicies: inst.GetResourcePolicies()}
	collocated, apiErr := s.planPolicies(p, probe, "")
	if apiErr == nil {
		apiErr = s.planScheduling(p, probe, "scheduling", collocated)
	}
	if apiErr != nil {
		apiErr.Message = trimField(apiErr.Message)
		fail(w, r, apiErr)
		return
	}
	op := s.mutateOp(r, key, "setScheduling", inst.GetId(), func(tx *core.Tx, inst *computepb.Instance) error {
		inst.Scheduling = probe.Scheduling
		inst.Fingerprint = proto.String(s.randomFingerprint())
		return nil
	}, nil)
	core.WriteJSON(w, http.StatusOK, op)
}

// trimField turns the "scheduling.scheduling.x" that planScheduling names under the "scheduling" prefix into the
// request's own field path ("scheduling.x").
func trimField(msg string) string {
	return strings.Replace(msg, "'scheduling.scheduling.", "'scheduling.", 1)
}

func (s *Service) setTags(w http.ResponseWriter, r *http.Request) {
	req := &computepb.Tags{}
	if _, err := readBody(r, req); err != nil {
		fail(w, r, err)
		return
	}
	key, inst, ok := s.instanceFor(w, r)
	if !ok {
		return
	}
	current := inst.GetTags().GetFingerprint()
	if req.GetFingerprint() != current {
		fail(w, r, core.ConditionNotMet(tagsFingerprint))
		return
	}
	for i, t := range req.GetItems() {
		if !core.ValidName(t) {
			fail(w, r, core.InvalidField(fmt.Sprintf("tags.items[%d]", i), t, "Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)'"))
			return
		}
	}
	op := s.mutateOp(r, key, "setTags", inst.GetId(), func(tx *core.Tx, inst *computepb.Instance) error {
		if inst.GetTags().GetFingerprint() != current {
			return core.NewOpError(412, "CONDITION_NOT_MET", tagsFingerprint)
		}
		inst.Tags = &computepb.Tags{Items: req.GetItems(), Fingerprint: proto.String(s.randomFingerprint())}
		inst.Fingerprint = proto.String(s.randomFingerprint())
		return nil
	}, nil)
	core.WriteJSON(w, http.StatusOK, op)
}

// setDeletionProtection takes its value from the query (?deletionProtection=, true when absent).
func (s *Service) setDeletionProtection(w http.ResponseWriter, r *http.Request) {
	on := true
	if v := r.URL.Query().Get("deletionProtection"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			fail(w, r, core.InvalidField("deletionProtection", v, "Must be true or false."))
			return
		}
		on = b
	}
	key, inst, ok := s.instanceFor(w, r)
	if !ok {
		return
	}
	op := s.mutateOp(r, key, "setDeletionProtection", inst.GetId(), func(tx *core.Tx, inst *computepb.Instance) error {
		inst.DeletionProtection = proto.Bool(on)
		return nil
	}, nil)
	core.WriteJSON(w, http.StatusOK, op)
}

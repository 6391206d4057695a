package instances

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

const instancePath = prefix + "/zones/{zone}/instances"

func (s *Service) instanceRoutes() {
	s.handle("POST "+instancePath, "compute.instances.insert", core.Mutating, s.insertInstance)
	s.handle("GET "+instancePath+"/{instance}", "compute.instances.get", core.Read, s.getInstance)
	s.handle("GET "+instancePath, "compute.instances.list", core.Read, s.listInstances)
	s.handle("GET "+prefix+"/aggregated/instances", "compute.instances.aggregatedList", core.Read, s.aggregatedInstances)
	s.handle("DELETE "+instancePath+"/{instance}", "compute.instances.delete", core.Mutating, s.deleteInstance)
	s.handle("POST "+instancePath+"/{instance}/setMetadata", "compute.instances.setMetadata", core.Mutating, s.setMetadata)
	s.handle("POST "+instancePath+"/{instance}/setLabels", "compute.instances.setLabels", core.Mutating, s.setLabels)
	s.handle("POST "+instancePath+"/{instance}/reset", "compute.instances.reset", core.Mutating, s.resetInstance)
	s.handle("POST "+instancePath+"/{instance}/stop", "compute.instances.stop", core.Mutating, s.stopInstance)
	s.handle("POST "+instancePath+"/{instance}/start", "compute.instances.start", core.Mutating, s.startInstance)
	s.handle("GET "+instancePath+"/{instance}/getGuestAttributes", "compute.instances.getGuestAttributes", core.Read, s.getGuestAttributes)
	s.setRoutes()
	s.handle("GET "+instancePath+"/{instance}/serialPort", "compute.instances.getSerialPortOutput", core.Read, s.getSerialPortOutput)
}

// readBody reads a request body, rejecting what the official front end rejects (bad JSON, unknown fields) with
// a 400, and returns the raw JSON for merging.
func readBody(r *http.Request, m proto.Message) (json.RawMessage, *core.APIError) {
	b, err := io.ReadAll(io.LimitReader(r.Body, 32<<20))
	if err != nil {
		return nil, &core.APIError{Code: 400, Reason: "parseError", Message: "Could not read request body: " + err.Error()}
	}
	if strings.TrimSpace(string(b)) == "" {
		b = []byte("{}")
	}
	if err := protojson.Unmarshal(b, m); err != nil {
		return nil, &core.APIError{Code: 400, Reason: "parseError", Message: "Invalid JSON payload received. " + err.Error()}
	}
	return b, nil
}

// instanceFromTemplate merges the request body over the properties of a source instance template (JSON merge
// patch: objects merge, lists and scalars of the body win).
func (s *Service) instanceFromTemplate(project, ref string, body json.RawMessage) (*computepb.Instance, *core.APIError) {
	tmplKey, kind := templateKey(project, ref)
	var tmpl computepb.InstanceTemplate
	if ok, _ := s.Store.Get(kind, tmplKey, &tmpl); !ok {
		return nil, core.NotFound(tmplKey)
	}
	props, err := protojson.Marshal(tmpl.GetProperties())
	if err != nil {
		return nil, core.Internal(err.Error())
	}
	merged, err := core.MergePatch(props, body)
	if err != nil {
		return nil, core.Invalid(err.Error())
	}
	var inst computepb.Instance
	if err := core.Decode(merged, &inst); err != nil {
		return nil, core.Invalid("Invalid instance properties: " + err.Error())
	}
	return &inst, nil
}

func (s *Service) insertInstance(w http.ResponseWriter, r *http.Request) {
	zone, ok := s.zone(w, r)
	if !ok {
		return
	}
	project := r.PathValue("project")
	inst := &computepb.Instance{}
	raw, apiErr := readBody(r, inst)
	if apiErr != nil {
		fail(w, r, apiErr)
		return
	}
	if ref := r.URL.Query().Get("sourceInstanceTemplate"); ref != "" {
		if inst, apiErr = s.instanceFromTemplate(project, ref, raw); apiErr != nil {
			fail(w, r, apiErr)
			return
		}
	}
	name := inst.GetName()
	if err := core.ValidateName("resource.name", name); err != nil {
		fail(w, r, err)
		return
	}
	key := InstanceKey(project, zone, name)
	if s.Store.Exists(KindInstances, key) {
		fail(w, r, core.AlreadyExists(key))
		return
	}
	p, apiErr := s.plan(project, zone, inst, "resource")
	if apiErr != nil {
		fail(w, r, apiErr)
		return
	}
	if apiErr := s.checkPlacementRoom(p.proto, 1, "resource"); apiErr != nil {
		fail(w, r, apiErr)
		return
	}
	vm := s.instantiate(p, name, inst.GetHostname())
	if apiErr := s.assignIPs(p, key, vm, s.Store.List, "resource"); apiErr != nil {
		fail(w, r, apiErr)
		return
	}
	err := s.Store.Update(func(tx *core.Tx) error {
		if tx.Exists(KindInstances, key) {
			return core.AlreadyExists(key)
		}
		if err := s.attachDisks(tx, p, vm); err != nil {
			return err
		}
		return tx.Put(KindInstances, key, vm)
	})
	if err != nil {
		s.releaseIPs(p, key, vm)
		fail(w, r, err)
		return
	}
	s.stageLater(key, "compute.instances.insert")
	op := s.Ops.StartCompute(r, core.ComputeOp{
		Project: project, Zone: zone, OperationType: "insert", TargetLink: key, TargetID: vm.GetId(),
		Apply:    func(tx *core.Tx, _ *computepb.Operation) error { return s.provision(tx, key) },
		Rollback: func(tx *core.Tx) { s.discard(tx, key) },
	})
	core.WriteJSON(w, http.StatusOK, op)
}

// stageLater shows an instance STAGING halfway through a slow insert, as Compute does between PROVISIONING and
// RUNNING. With no latency the insert completes at once and this does nothing.
func (s *Service) stageLater(key, method string) {
	d, ok := s.Faults.Latency(method)
	if !ok {
		d = s.OpLatency
	}
	if d <= 2*time.Millisecond {
		return
	}
	time.AfterFunc(d/2, func() {
		_ = s.Store.Update(func(tx *core.Tx) error {
			var inst computepb.Instance
			if ok, _ := tx.Get(KindInstances, key, &inst); !ok || inst.GetStatus() != statusProvisioning {
				return nil
			}
			inst.Status = proto.String(statusStaging)
			return tx.Put(KindInstances, key, &inst)
		})
	})
}

// provision completes an insert: it acquires capacity, reservation and quota and marks the VM RUNNING. A
// flex-start VM that finds no capacity waits in PENDING instead of failing.
func (s *Service) provision(tx *core.Tx, key string) error {
	var inst computepb.Instance
	if ok, _ := tx.Get(KindInstances, key, &inst); !ok {
		return core.OpNotFound(key)
	}
	sp := tx.Savepoint()
	if err := s.acquire(tx, key, &inst); err != nil {
		if inst.GetScheduling().GetProvisioningModel() == modelFlexStart && isStockout(err) {
			tx.RollbackTo(sp)
			inst.Status = proto.String(statusPending)
			return tx.Put(KindInstances, key, &inst)
		}
		return err
	}
	if st := inst.GetStatus(); st == statusProvisioning || st == statusStaging || st == statusPending {
		s.markRunning(&inst)
	}
	return tx.Put(KindInstances, key, &inst)
}

func isStockout(err error) bool {
	oe := core.AsOpError(err)
	return len(oe.Errors) > 0 && strings.HasPrefix(oe.Errors[0].GetCode(), "ZONE_RESOURCE_POOL_EXHAUSTED")
}

// markRunning sets what a VM reaching RUNNING shows: start time, termination time for a bounded run, physical
// host, fresh fingerprint.
func (s *Service) markRunning(inst *computepb.Instance) {
	now := s.Now()
	inst.Status = proto.String(statusRunning)
	inst.LastStartTimestamp = proto.String(core.Timestamp(now))
	if inst.ResourceStatus == nil {
		inst.ResourceStatus = &computepb.ResourceStatus{}
	}
	if d := inst.GetScheduling().GetMaxRunDuration(); d != nil {
		inst.ResourceStatus.Scheduling = &computepb.ResourceStatusScheduling{TerminationTimestamp: proto.String(core.Timestamp(now.Add(durationOf(d))))}
	}
	if inst.ResourceStatus.PhysicalHost == nil {
		// Stable until a host event moves the VM (hostevents.go).
		inst.ResourceStatus.PhysicalHost = proto.String(physicalHost(inst))
	}
	inst.Fingerprint = proto.String(s.randomFingerprint())
}

// physicalHost fakes the /CLUSTER/RACK/HOST topology string VMs report; VMs of one placement policy share
// the cluster part, as compact placement promises.
func physicalHost(inst *computepb.Instance) string {
	group := inst.GetZone()
	if len(inst.GetResourcePolicies()) > 0 {
		group = inst.GetResourcePolicies()[0]
	}
	c := core.Fingerprint(group)
	h := core.Fingerprint(fmt.Sprint(inst.GetId()))
	return fmt.Sprintf("/%x/%x/%x", c[:4], h[:4], h[4:8])
}

// discard removes an instance whose creation failed.
func (s *Service) discard(tx *core.Tx, key string) {
	_ = s.releaseCharge(tx, key)
	s.detachDisks(tx, key)
	tx.Delete(KindGuestAttributes, key)
	tx.Delete(KindHostEvents, key)
	tx.Delete(KindInstances, key)
}

// instanceFor loads the instance a request names, answering 404 itself.
func (s *Service) instanceFor(w http.ResponseWriter, r *http.Request) (string, *computepb.Instance, bool) {
	zone, ok := s.zone(w, r)
	if !ok {
		return "", nil, false
	}
	key := InstanceKey(r.PathValue("project"), zone, r.PathValue("instance"))
	inst, ok := s.Instance(key)
	if !ok {
		fail(w, r, core.NotFound(key))
		return "", nil, false
	}
	return key, inst, true
}

func (s *Service) getInstance(w http.ResponseWriter, r *http.Request) {
	zone, ok := s.zone(w, r)
	if !ok {
		return
	}
	s.getRaw(w, r, KindInstances, InstanceKey(r.PathValue("project"), zone, r.PathValue("instance")))
}

func (s *Service) listInstances(w http.ResponseWriter, r *http.Request) {
	zone, ok := s.zone(w, r)
	if !ok {
		return
	}
	s.list(w, r, "compute#instanceList", KindInstances, fmt.Sprintf("projects/%s/zones/%s/instances/", r.PathValue("project"), zone))
}

func (s *Service) aggregatedInstances(w http.ResponseWriter, r *http.Request) {
	s.aggregated(w, r, "compute#instanceAggregatedList", "instances", s.Store.List(KindInstances, "projects/"+r.PathValue("project")+"/"), zoneScopes())
}

package instances

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// MaxBulkCount is the most VMs one bulkInsert call may ask for.
const MaxBulkCount = 5000

// Bulk location statuses.
const (
	bulkCreating    = "CREATING"
	bulkRollingBack = "ROLLING_BACK"
	bulkDone        = "DONE"
)

func (s *Service) bulkRoutes() {
	s.handle("POST "+instancePath+"/bulkInsert", "compute.instances.bulkInsert", core.Mutating, s.bulkInsert)
	s.handle("POST "+prefix+"/regions/{region}/instances/bulkInsert", "compute.regionInstances.bulkInsert", core.Mutating, s.bulkInsert)
}

// bulkJob is a validated bulkInsert request. Everything is decided when the operation completes, in one store
// transaction: names (numbering continues after the highest existing match then), zones, capacity, quota.
type bulkJob struct {
	project, region string
	regional        bool
	count, minCount int
	pattern         *namePattern
	perInstance     map[string]string // name → hostname
	plans           []*plan           // one per candidate zone, in preference order
	shape           string            // regional target shape: ANY, ANY_SINGLE_ZONE, BALANCED
	groupID         string
}

type bulkVM struct {
	name, hostname string
	zone, key      string
	inst           *computepb.Instance
	plan           *plan
	err            error
	created        bool
}

func (s *Service) bulkInsert(w http.ResponseWriter, r *http.Request) {
	project := r.PathValue("project")
	job := &bulkJob{project: project, regional: r.PathValue("region") != ""}
	var zone string
	if job.regional {
		region, ok := s.region(w, r)
		if !ok {
			return
		}
		job.region = region
	} else {
		z, ok := s.zone(w, r)
		if !ok {
			return
		}
		zone = z
		job.region, _ = catalog.RegionOf(z)
	}
	req := &computepb.BulkInsertInstanceResource{}
	raw, apiErr := readBody(r, req)
	if apiErr != nil {
		fail(w, r, apiErr)
		return
	}
	if apiErr := job.parseCounts(req); apiErr != nil {
		fail(w, r, apiErr)
		return
	}
	props, apiErr := s.bulkProperties(project, req, raw)
	if apiErr != nil {
		fail(w, r, apiErr)
		return
	}
	zones := []string{zone}
	if job.regional {
		if zones, apiErr = job.candidateZones(req.GetLocationPolicy(), props); apiErr != nil {
			fail(w, r, apiErr)
			return
		}
	}
	var firstErr *core.APIError
	for _, z := range zones {
		p, err := s.plan(project, z, props, "resource.instanceProperties")
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		job.plans = append(job.plans, p)
	}
	if len(job.plans) == 0 {
		fail(w, r, firstErr)
		return
	}
	if apiErr := s.checkPlacementRoom(job.plans[0].proto, job.count, "resource.instanceProperties"); apiErr != nil {
		fail(w, r, apiErr)
		return
	}
	job.groupID = s.groupID()
	spec := core.ComputeOp{
		Project: project, OperationType: "bulkInsert", OperationGroupID: job.groupID,
		Apply: func(tx *core.Tx, op *computepb.Operation) error { return s.applyBulk(tx, op, job) },
	}
	if job.regional {
		spec.Region = job.region
		spec.TargetLink = fmt.Sprintf("projects/%s/regions/%s/instances", project, job.region)
	} else {
		spec.Zone = zone
		spec.TargetLink = fmt.Sprintf("projects/%s/zones/%s/instances", project, zone)
	}
	op := s.Ops.StartCompute(r, spec)
	// While it runs, the operation shows its target (what a client polling it sees before the result).
	_ = s.Ops.UpdateCompute(core.RelativePath(op.GetSelfLink()), func(o *computepb.Operation) {
		if o.GetStatus() == computepb.Operation_RUNNING && o.InstancesBulkInsertOperationMetadata == nil {
			o.InstancesBulkInsertOperationMetadata = &computepb.InstancesBulkInsertOperationMetadata{PerLocationStatus: map[string]*computepb.BulkInsertOperationStatus{}}
			for _, p := range job.plans[:1] {
				o.InstancesBulkInsertOperationMetadata.PerLocationStatus["zones/"+p.zone] = &computepb.BulkInsertOperationStatus{
					Status: proto.String(bulkCreating), TargetVmCount: proto.Int32(int32(job.count)),
					CreatedVmCount: proto.Int32(0), FailedToCreateVmCount: proto.Int32(0), DeletedVmCount: proto.Int32(0)}
			}
		}
	})
	core.WriteJSON(w, http.StatusOK, op)
}

// groupID is an operationGroupId in the UUID form Compute uses.
func (s *Service) groupID() string {
	h := s.Rand.Hex(32)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func (job *bulkJob) parseCounts(req *computepb.BulkInsertInstanceResource) *core.APIError {
	if req.Count == nil {
		return core.Required("resource.count")
	}
	job.count = int(req.GetCount())
	if job.count < 1 || job.count > MaxBulkCount {
		return core.InvalidField("resource.count", fmt.Sprint(req.GetCount()), fmt.Sprintf("Must be between 1 and %d.", MaxBulkCount))
	}
	job.minCount = job.count
	if req.MinCount != nil {
		job.minCount = int(req.GetMinCount())
		if job.minCount < 1 || job.minCount > job.count {
			return core.InvalidField("resource.minCount", fmt.Sprint(req.GetMinCount()), "Must be between 1 and count.")
		}
	}
	if len(req.GetPerInstanceProperties()) > 0 {
		job.perInstance = map[string]string{}
		for name, pip := range req.GetPerInstanceProperties() {
			if err := core.ValidateName("resource.perInstanceProperties", name); err != nil {
				return err
			}
			if h := pip.GetHostname(); h != "" {
				if err := validateHostname("resource.perInstanceProperties['"+name+"'].hostname", h); err != nil {
					return err
				}
			}
			job.perInstance[name] = pip.GetHostname()
		}
		if len(job.perInstance) > job.count {
			return core.InvalidField("resource.perInstanceProperties", fmt.Sprint(len(job.perInstance)), "More per-instance properties than count.")
		}
	}
	if p := req.GetNamePattern(); p != "" {
		np, err := parseNamePattern(p)
		if err != nil {
			return err
		}
		job.pattern = np
	} else if len(job.perInstance) < job.count {
		return core.InvalidField("resource.namePattern", "", "Either namePattern or one perInstanceProperties entry per instance (count) must be given.")
	}
	return nil
}

// bulkProperties merges instanceProperties over sourceInstanceTemplate's properties (JSON merge patch) into the
// instance every VM starts from.
func (s *Service) bulkProperties(project string, req *computepb.BulkInsertInstanceResource, raw json.RawMessage) (*computepb.Instance, *core.APIError) {
	var body struct {
		InstanceProperties json.RawMessage `json:"instanceProperties"`
	}
	_ = json.Unmarshal(raw, &body)
	var base json.RawMessage
	if ref := req.GetSourceInstanceTemplate(); ref != "" {
		key, kind := templateKey(project, ref)
		var t computepb.InstanceTemplate
		if ok, _ := s.Store.Get(kind, key, &t); !ok {
			return nil, core.NotFound(key)
		}
		b, err := protojson.Marshal(t.GetProperties())
		if err != nil {
			return nil, core.Internal(err.Error())
		}
		base = b
	}
	if base == nil && body.InstanceProperties == nil {
		return nil, core.Required("resource.instanceProperties")
	}
	merged := base
	if body.InstanceProperties != nil {
		if base == nil {
			base = json.RawMessage(`{}`)
		}
		m, err := core.MergePatch(base, body.InstanceProperties)
		if err != nil {
			return nil, core.Invalid(err.Error())
		}
		merged = m
	}
	var inst computepb.Instance
	if err := core.Decode(merged, &inst); err != nil {
		return nil, core.Invalid("Invalid instance properties: " + err.Error())
	}
	return &inst, nil
}

// candidateZones orders the zones a regional bulkInsert may use: PREFERRED first, then ALLOW (every zone of the
// region when the policy names none), never DENY, only zones offering the machine type.
func (job *bulkJob) candidateZones(lp *computepb.LocationPolicy, props *computepb.Instance) ([]string, *core.APIError) {
	job.shape = lp.GetTargetShape()
	switch job.shape {
	case "":
		job.shape = "ANY"
	case "ANY", "ANY_SINGLE_ZONE", "BALANCED":
	default:
		return nil, core.InvalidField("resource.locationPolicy.targetShape", job.shape, "Must be ANY, ANY_SINGLE_ZONE or BALANCED.")
	}
	mtName, _ := machineTypeName(props.GetMachineType())
	var preferred, allowed []string
	deny := map[string]bool{}
	for loc, l := range lp.GetLocations() {
		z := strings.TrimPrefix(loc, "zones/")
		if r, ok := catalog.RegionOf(z); !ok || r != job.region {
			return nil, core.InvalidField("resource.locationPolicy.locations", loc, fmt.Sprintf("Must be a zone of region '%s'.", job.region))
		}
		switch l.GetPreference() {
		case "DENY":
			deny[z] = true
		case "PREFERRED":
			preferred = append(preferred, z)
		default:
			allowed = append(allowed, z)
		}
	}
	if len(preferred)+len(allowed) == 0 {
		for _, z := range catalog.ZonesInRegion(job.region) {
			if !deny[z.Name] {
				allowed = append(allowed, z.Name)
			}
		}
	}
	sort.Strings(preferred)
	sort.Strings(allowed)
	var out []string
	for _, z := range append(preferred, allowed...) {
		if zi, ok := catalog.Zone(z); ok && zi.Offers(mtName) {
			out = append(out, z)
		}
	}
	if len(out) == 0 {
		return nil, core.InvalidField("resource.instanceProperties.machineType", mtName,
			fmt.Sprintf("Machine type with name '%s' does not exist in any allowed zone of region '%s'.", mtName, job.region))
	}
	return out, nil
}

// names lists the VMs to create: per-instance names (sorted) then pattern names numbered after the highest
// existing match in the job's zones.
func (job *bulkJob) names(tx *core.Tx) []bulkVM {
	var out []bulkVM
	taken := map[string]bool{}
	pipNames := make([]string, 0, len(job.perInstance))
	for n := range job.perInstance {
		pipNames = append(pipNames, n)
	}
	sort.Strings(pipNames)
	for _, n := range pipNames {
		out = append(out, bulkVM{name: n, hostname: job.perInstance[n]})
		taken[n] = true
	}
	if job.pattern == nil || len(out) >= job.count {
		return out
	}
	var existing []string
	for _, p := range job.plans {
		collection := fmt.Sprintf("projects/%s/zones/%s/instances/", job.project, p.zone)
		for _, rec := range tx.List(KindInstances, collection) {
			existing = append(existing, rec.Key[len(collection):])
		}
	}
	next := job.pattern.highest(existing) + 1
	for len(out) < job.count {
		n := job.pattern.name(next)
		next++
		if taken[n] {
			continue
		}
		out = append(out, bulkVM{name: n})
	}
	return out
}

// applyBulk creates the VMs in one transaction. Per-VM failures (stockout, quota, reservation, existing name)
// become per-VM insert operations with the job's operationGroupId; when fewer than minCount VMs result, every
// VM created is rolled back (deletedVmCount) and the operation fails with the first per-VM error.
func (s *Service) applyBulk(tx *core.Tx, op *computepb.Operation, job *bulkJob) error {
	vms := job.names(tx)
	spAll := tx.Savepoint()
	status := map[string]*computepb.BulkInsertOperationStatus{}
	loc := func(zone string) *computepb.BulkInsertOperationStatus {
		st := status["zones/"+zone]
		if st == nil {
			st = &computepb.BulkInsertOperationStatus{Status: proto.String(bulkDone), TargetVmCount: proto.Int32(0),
				CreatedVmCount: proto.Int32(0), FailedToCreateVmCount: proto.Int32(0), DeletedVmCount: proto.Int32(0)}
			status["zones/"+zone] = st
		}
		return st
	}
	s.placeBulk(tx, job, vms)
	created, existed := 0, 0
	var firstErr error
	for i := range vms {
		vm := &vms[i]
		st := loc(vm.zone)
		*st.TargetVmCount++
		switch {
		case vm.created:
			created++
			*st.CreatedVmCount++
		default:
			*st.FailedToCreateVmCount++
			if isAlreadyExists(vm.err) {
				existed++
			} else if firstErr == nil {
				firstErr = vm.err
			}
		}
	}
	var bulkErr *core.OpError
	if created+existed < job.minCount {
		if firstErr == nil {
			firstErr = core.ZoneResourcePoolExhausted(job.project, vms[0].zone)
		}
		bulkErr = core.AsOpError(firstErr)
		tx.RollbackTo(spAll)
		for i := range vms {
			vm := &vms[i]
			if vm.created {
				s.releaseIPs(vm.plan, vm.key, vm.inst)
				st := loc(vm.zone)
				*st.CreatedVmCount--
				*st.DeletedVmCount++
			}
		}
	}
	for i := range vms {
		if err := tx.Put(s.vmOperation(&vms[i], job, op)); err != nil {
			return err
		}
	}
	op.InstancesBulkInsertOperationMetadata = &computepb.InstancesBulkInsertOperationMetadata{PerLocationStatus: status}
	if bulkErr != nil {
		op.Error = &computepb.Error{Errors: bulkErr.Errors}
		op.HttpErrorStatusCode = proto.Int32(int32(bulkErr.HTTPStatus))
		op.HttpErrorMessage = proto.String(strings.ToUpper(http.StatusText(bulkErr.HTTPStatus)))
	}
	return nil
}

func isAlreadyExists(err error) bool {
	oe := core.AsOpError(err)
	return len(oe.Errors) > 0 && oe.Errors[0].GetCode() == "RESOURCE_ALREADY_EXISTS"
}

// placeBulk assigns zones and creates VMs per the target shape. Zonal jobs have one plan; regional ones try
// zones in preference order (ANY: fill a zone, move on when it runs out; BALANCED: round robin; ANY_SINGLE_ZONE:
// the first zone that reaches minCount on its own).
func (s *Service) placeBulk(tx *core.Tx, job *bulkJob, vms []bulkVM) {
	plans := job.plans
	switch {
	case len(plans) == 1 || job.shape == "ANY":
		zi := 0
		for i := range vms {
			for {
				s.createBulkVM(tx, job, plans[zi], &vms[i])
				if vms[i].created || !isCapacityError(vms[i].err) || zi == len(plans)-1 {
					break
				}
				zi++
			}
		}
	case job.shape == "BALANCED":
		for i := range vms {
			for k := range plans {
				s.createBulkVM(tx, job, plans[(i+k)%len(plans)], &vms[i])
				if vms[i].created || !isCapacityError(vms[i].err) {
					break
				}
			}
		}
	default: // ANY_SINGLE_ZONE
		best, bestCreated := 0, -1
		for zi, p := range plans {
			sp := tx.Savepoint()
			n := 0
			for i := range vms {
				s.createBulkVM(tx, job, p, &vms[i])
				if vms[i].created {
					n++
				}
			}
			if n >= job.minCount {
				return
			}
			s.undoBulk(tx, sp, vms)
			if n > bestCreated {
				best, bestCreated = zi, n
			}
		}
		for i := range vms {
			s.createBulkVM(tx, job, plans[best], &vms[i])
		}
	}
}

// undoBulk rolls tx back to sp and forgets the VMs created since.
func (s *Service) undoBulk(tx *core.Tx, sp int, vms []bulkVM) {
	tx.RollbackTo(sp)
	for i := range vms {
		if vms[i].created {
			s.releaseIPs(vms[i].plan, vms[i].key, vms[i].inst)
			vms[i].created = false
		}
	}
}

func isCapacityError(err error) bool {
	return err != nil && isStockout(err)
}

// createBulkVM creates one VM of the job in p's zone, recording the outcome in vm.
func (s *Service) createBulkVM(tx *core.Tx, job *bulkJob, p *plan, vm *bulkVM) {
	vm.zone, vm.plan, vm.created, vm.err = p.zone, p, false, nil
	vm.key = InstanceKey(job.project, p.zone, vm.name)
	if tx.Exists(KindInstances, vm.key) {
		vm.inst = nil
		vm.err = core.OpAlreadyExists(vm.key)
		return
	}
	inst := s.instantiate(p, vm.name, vm.hostname)
	vm.inst = inst
	if apiErr := s.assignIPs(p, vm.key, inst, tx.List, "resource.instanceProperties"); apiErr != nil {
		vm.err = apiErr
		return
	}
	sp := tx.Savepoint()
	if err := s.acquire(tx, vm.key, inst); err != nil {
		tx.RollbackTo(sp)
		if inst.GetScheduling().GetProvisioningModel() != modelFlexStart || !isStockout(err) {
			s.releaseIPs(p, vm.key, inst)
			vm.err = err
			return
		}
		inst.Status = proto.String(statusPending) // flex-start waits for capacity
	} else {
		s.markRunning(inst)
	}
	if err := s.attachDisks(tx, p, inst); err != nil {
		tx.RollbackTo(sp)
		s.releaseIPs(p, vm.key, inst)
		vm.err = err
		return
	}
	if err := tx.Put(KindInstances, vm.key, inst); err != nil {
		tx.RollbackTo(sp)
		s.releaseIPs(p, vm.key, inst)
		vm.err = err
		return
	}
	vm.created = true
}

// vmOperation is the per-VM insert operation of a bulk job, recorded DONE with the VM's outcome.
func (s *Service) vmOperation(vm *bulkVM, job *bulkJob, bulk *computepb.Operation) (string, string, *computepb.Operation) {
	now := s.Now()
	name := fmt.Sprintf("operation-%d-%s-%s-%s", now.UnixMilli(), s.Rand.Hex(13), s.Rand.Hex(8), s.Rand.Hex(8))
	key := core.OperationKey(job.project, vm.zone, "", name)
	op := &computepb.Operation{
		Kind:             proto.String("compute#operation"),
		Id:               proto.Uint64(s.Rand.ID()),
		Name:             proto.String(name),
		OperationType:    proto.String("insert"),
		Status:           computepb.Operation_DONE.Enum(),
		Progress:         proto.Int32(100),
		InsertTime:       bulk.InsertTime,
		StartTime:        bulk.StartTime,
		EndTime:          proto.String(core.Timestamp(now)),
		SelfLink:         proto.String(core.SelfLink(key)),
		TargetLink:       proto.String(core.SelfLink(vm.key)),
		Zone:             proto.String(core.SelfLink(fmt.Sprintf("projects/%s/zones/%s", job.project, vm.zone))),
		User:             bulk.User,
		OperationGroupId: proto.String(job.groupID),
	}
	if vm.inst != nil {
		op.TargetId = vm.inst.Id
	}
	if vm.err != nil {
		oe := core.AsOpError(vm.err)
		op.Error = &computepb.Error{Errors: oe.Errors}
		op.HttpErrorStatusCode = proto.Int32(int32(oe.HTTPStatus))
		op.HttpErrorMessage = proto.String(strings.ToUpper(http.StatusText(oe.HTTPStatus)))
	}
	return core.KindComputeOperations, key, op
}

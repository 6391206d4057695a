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

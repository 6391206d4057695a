package instances

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

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

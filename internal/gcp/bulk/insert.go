// Package bulk is the Compute API's many-VM actions, shared by the node partition resource (static nodes)
// and the agent's Slurm power programs (cloud nodes): one bulkInsert with the VM names given one by one, the
// per-VM failures of that request, and deletes run in parallel (Compute has no bulk delete).
package bulk

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/api/iterator"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
)

// MaxVMs is the most VMs one bulkInsert creates.
const MaxVMs = 5000

// pageSize is Compute's largest list page: a 1,000-VM partition is listed in two calls.
const pageSize = 500

// Insert is one bulkInsert of Names (at most MaxVMs) in Project/Zone, from a source instance Template or
// from Properties.
type Insert struct {
	Project, Zone string
	Names         []string
	// MinCount is how many VMs must be created for the request to keep any.
	MinCount   int64
	Template   string
	Properties *computepb.InstanceProperties
}

// Run sends the request, with a fresh requestId and the names in perInstanceProperties so each VM is
// named exactly, and waits for it. It returns the finished operation (nil when the request was refused or
// the wait ended without one), whether every VM was created, and the operation's error.
func (in Insert) Run(ctx context.Context, cl *gcp.Clients) (done *computepb.Operation, all bool, err error) {
	per := make(map[string]*computepb.BulkInsertInstanceResourcePerInstanceProperties, len(in.Names))
	for _, n := range in.Names {
		per[n] = &computepb.BulkInsertInstanceResourcePerInstanceProperties{}
	}
	res := &computepb.BulkInsertInstanceResource{
		Count: proto.Int64(int64(len(in.Names))), MinCount: proto.Int64(in.MinCount),
		PerInstanceProperties: per, InstanceProperties: in.Properties,
	}
	if in.Template != "" {
		res.SourceInstanceTemplate = proto.String(in.Template)
	}
	op, err := cl.Instances.BulkInsert(ctx, &computepb.BulkInsertInstanceRequest{
		Project: in.Project, Zone: in.Zone, RequestId: gcp.NewRequestIDPtr(),
		BulkInsertInstanceResourceResource: res,
	})
	if err != nil {
		return nil, false, fmt.Errorf("bulkInsert of %d VMs: %w", len(in.Names), gcp.Classify(err))
	}
	done, err = cl.WaitCompute(ctx, op)
	if done == nil {
		return nil, false, err
	}
	st := done.GetInstancesBulkInsertOperationMetadata().GetPerLocationStatus()["zones/"+in.Zone]
	return done, err == nil && st != nil && int(st.GetCreatedVmCount()) >= len(in.Names), err
}

// Failure is one VM a bulkInsert could not create, from its per-VM insert operation.
type Failure struct{ Name, Code, Message string }

// Failures lists, by VM name, the per-VM insert operations of a bulk request (grouped under its
// operationGroupId) that failed, with their first error; RESOURCE_ALREADY_EXISTS is among them, for the
// caller to judge. The error is the list call's, classified; the failures read before it come with it.
func Failures(ctx context.Context, cl *gcp.Clients, project, groupID string) ([]Failure, error) {
	if groupID == "" {
		return nil, nil
	}
	it := cl.GlobalOperations.AggregatedList(ctx, &computepb.AggregatedListGlobalOperationsRequest{
		Project: project, MaxResults: proto.Uint32(pageSize),
		Filter: proto.String(fmt.Sprintf("(operationType = insert) AND (operationGroupId = %q)", groupID)),
	})
	var out []Failure
	for {
		pair, err := it.Next()
		if err == iterator.Done {
			break
		}
		if err != nil {
			return out, gcp.Classify(err)
		}
		for _, op := range pair.Value.GetOperations() {
			errs := op.GetError().GetErrors()
			if len(errs) == 0 {
				continue
			}
			link := op.GetTargetLink()
			out = append(out, Failure{Name: link[strings.LastIndex(link, "/")+1:], Code: errs[0].GetCode(), Message: errs[0].GetMessage()})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

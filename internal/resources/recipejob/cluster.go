package recipejob

import (
	"context"
	"encoding/json"
	"fmt"

	"cloud.google.com/go/compute/apiv1/computepb"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/recipes"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// controllerView is what a job learns from its cluster's controller VM, all
// from one instances.get: the cluster's own configuration, the partitions
// and the jobs written there.
type controllerView struct {
	ref  cc.ClusterID
	inst *computepb.Instance
	cfg  cc.Cluster
	md   map[string]string
}

// readController reads the controller and the cluster configuration it holds.
func readController(ctx context.Context, cl *gcp.Clients, ref cc.ClusterID) (*controllerView, error) {
	inst, cfg, err := tfutil.ReadController(ctx, cl, ref)
	if err != nil {
		return nil, err
	}
	return &controllerView{ref: ref, inst: inst, cfg: cfg, md: tfutil.MetadataMap(inst.GetMetadata())}, nil
}

// partition is the desired configuration of one partition, as its
// hypercompute_node_partition wrote it; ok is false when there is none (yet).
func (v *controllerView) partition(name string) (cc.Partition, bool, error) {
	raw, ok := v.md[cc.PartitionKey(name)]
	if !ok {
		return cc.Partition{}, false, nil
	}
	p, err := cc.DecodePartition(v.cfg.Name, []byte(raw))
	if err != nil {
		return cc.Partition{}, false, fmt.Errorf("partition %s on the controller %s is invalid: %w", name, v.ref.Controller(), err)
	}
	return p, true, nil
}

// job is the job written under the job's key; ok is false when there is none.
func (v *controllerView) job(name string) (recipes.Job, bool, error) {
	raw, ok := v.md[cc.JobKey(name)]
	if !ok {
		return recipes.Job{}, false, nil
	}
	var j recipes.Job
	if err := json.Unmarshal([]byte(raw), &j); err != nil {
		return recipes.Job{}, false, fmt.Errorf("metadata key %s on the controller %s is not a recipe job: %w", cc.JobKey(name), v.ref.Controller(), err)
	}
	return j, true, nil
}

// readJobReport reads the controller's report of the job; ok is false when
// there is none.
func readJobReport(ctx context.Context, cl *gcp.Clients, ref cc.ClusterID, name string) (cc.JobReport, bool, error) {
	r, err := tfutil.ReadReport(ctx, cl, tfutil.ControllerVM(ref))
	if err != nil {
		return cc.JobReport{}, false, err
	}
	return jobReportFrom(r, name)
}

func jobReportFrom(r tfutil.Report, name string) (cc.JobReport, bool, error) {
	v, ok := r.Attrs[cc.JobAttr(name)]
	if !ok {
		return cc.JobReport{}, false, nil
	}
	rep, err := cc.DecodeJobReport(v)
	if err != nil {
		return cc.JobReport{}, false, fmt.Errorf("the controller's report of job %s: %w", name, err)
	}
	return rep, true, nil
}

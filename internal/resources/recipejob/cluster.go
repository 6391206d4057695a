package recipejob

import (
	"context"
	"encoding/json"
	"errors"
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
	ref  clusterRef
	inst *computepb.Instance
	cfg  cc.Cluster
	md   map[string]string
}

// errNoController says the cluster's controller VM does not exist.
var errNoController = errors.New("the cluster's controller VM does not exist")

func (c clusterRef) vm() tfutil.VM {
	return tfutil.VM{Project: c.project, Zone: c.zone, Name: c.controller()}
}

// readController reads the controller and the cluster configuration it holds.
func readController(ctx context.Context, cl *gcp.Clients, ref clusterRef) (*controllerView, error) {
	inst, err := cl.Instances.Get(ctx, &computepb.GetInstanceRequest{Project: ref.project, Zone: ref.zone, Instance: ref.controller()})
	if err = gcp.Classify(err); err != nil {
		if gcp.IsNotFound(err) {
			return nil, fmt.Errorf("%w: %s in %s (is the training cluster %s created?)", errNoController, ref.controller(), ref.zone, ref.id())
		}
		return nil, fmt.Errorf("reading the controller %s: %w", ref.controller(), err)
	}
	md := tfutil.MetadataMap(inst.GetMetadata())
	raw, ok := md[cc.ClusterKey]
	if !ok {
		return nil, fmt.Errorf("the controller %s has no %s metadata: it was not created by hypercompute_training_cluster", ref.controller(), cc.ClusterKey)
	}
	cfg, err := cc.DecodeCluster([]byte(raw))
	if err != nil {
		return nil, fmt.Errorf("the cluster configuration on %s is invalid: %w", ref.controller(), err)
	}
	return &controllerView{ref: ref, inst: inst, cfg: cfg, md: md}, nil
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
		return cc.Partition{}, false, fmt.Errorf("partition %s on the controller %s is invalid: %w", name, v.ref.controller(), err)
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
		return recipes.Job{}, false, fmt.Errorf("metadata key %s on the controller %s is not a recipe job: %w", cc.JobKey(name), v.ref.controller(), err)
	}
	return j, true, nil
}

// readJobReport reads the controller's report of the job; ok is false when
// there is none.
func readJobReport(ctx context.Context, cl *gcp.Clients, ref clusterRef, name string) (cc.JobReport, bool, error) {
	r, err := tfutil.ReadReport(ctx, cl, ref.vm())
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

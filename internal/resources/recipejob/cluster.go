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

// partition is the Slurm partition a job names, as the node sets that form it
// (hypercompute_node_partition) wrote them: one node set's configuration, or for several node sets
// of one machine type their configuration with the counts summed (a job runs on one machine type:
// its recipe profile, GPUs per node and checkpoint figures follow from it). ok is false when no
// node set forms it (yet); a name that is only a node set of another Slurm partition is an error,
// since Slurm knows no partition of that name.
func (v *controllerView) partition(name string) (cc.Partition, bool, error) {
	var sets []cc.Partition
	for _, k := range tfutil.ControllerPartitions(v.md) {
		p, err := cc.DecodePartition(v.cfg.Name, []byte(v.md[cc.PartitionKey(k)]))
		if err != nil {
			if k == name {
				return cc.Partition{}, false, fmt.Errorf("partition %s on the controller %s is invalid: %w", name, v.ref.Controller(), err)
			}
			continue
		}
		if p.SlurmName() == name {
			sets = append(sets, p)
		} else if p.Name == name {
			return cc.Partition{}, false, fmt.Errorf("%s is a node set of Slurm partition %s, and jobs are submitted to Slurm partitions: set partition = %q", name, p.SlurmName(), p.SlurmName())
		}
	}
	if len(sets) == 0 {
		return cc.Partition{}, false, nil
	}
	out := sets[0]
	out.Name = name
	for _, s := range sets[1:] {
		if s.MachineType != out.MachineType {
			return cc.Partition{}, false, fmt.Errorf("Slurm partition %s mixes machine types (%s in node set %s, %s in node set %s); a recipe job runs on one machine type: give it a Slurm partition whose node sets share theirs",
				name, sets[0].MachineType, sets[0].Name, s.MachineType, s.Name)
		}
		out.StaticNodes += s.StaticNodes
		out.MaxDynamicNodes += s.MaxDynamicNodes
	}
	return out, true, nil
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

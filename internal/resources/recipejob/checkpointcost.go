package recipejob

import (
	"fmt"
	"path"
	"strings"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/goodput"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/recipes"
)

// checkpointCost is a job's checkpoint cost C estimated at plan: the
// recipe's checkpoint (weights and optimizer state, recipes.Recipe
// CheckpointBytes) written synchronously to the storage the checkpoint
// directory is on (goodput.CheckpointCostFor, from the catalog's bandwidth
// figures). known is false when that storage has no figure: /home (NFS) and
// a Managed Lustre the cluster names by address, whose capacity and
// throughput tier the cluster's configuration does not record.
type checkpointCost struct {
	cost  goodput.CheckpointCost
	gib   float64
	where string
	known bool
}

func estimateCheckpointCost(m cc.Mounts, dir, machineType string, nodes int, r recipes.Recipe) (checkpointCost, error) {
	b, ok := bucketOf(m, dir)
	if !ok {
		return checkpointCost{}, nil
	}
	gib := r.CheckpointGiB()
	c, err := goodput.CheckpointCostFor(machineType, nodes, goodput.Checkpoint{SizeGiB: gib, Target: catalog.CheckpointBucket})
	if err != nil {
		return checkpointCost{}, err
	}
	return checkpointCost{cost: c, gib: gib, where: "bucket " + b.Bucket + " (gcsfuse at " + b.MountPoint + ")", known: true}, nil
}

// bucketOf is the Cloud Storage bucket mount dir lies in, if any.
func bucketOf(m cc.Mounts, dir string) (cc.BucketMount, bool) {
	dir = path.Clean(dir)
	for _, b := range m.Buckets {
		mp := path.Clean(b.MountPoint)
		if dir == mp || strings.HasPrefix(dir, mp+"/") {
			return b, true
		}
	}
	return cc.BucketMount{}, false
}

// describe says how C was found, for the plan-time error.
func (c checkpointCost) describe(r recipes.Recipe, nodes int) string {
	return fmt.Sprintf("%s checkpoints %.1f GiB (%d parameters × %d bytes of weights and optimizer state), written to %s at %.0f MB/s from %d nodes",
		r.Key(), c.gib, r.Parameters, r.CheckpointBytesPerParameter, c.where, c.cost.WriteMBps, nodes)
}

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
// figures: gcsfuse per VM, Lustre's tier × capacity, Filestore's tier at its
// capacity). known is false when that storage has no figure: an NFS /home
// that is not a Filestore instance the cluster names (or a tier without a
// published figure), and a Managed Lustre the cluster names by address (its
// capacity and tier are then not recorded).
type checkpointCost struct {
	cost  goodput.CheckpointCost
	gib   float64
	where string
	known bool
}

func estimateCheckpointCost(m cc.Mounts, dir, machineType string, nodes int, r recipes.Recipe) (checkpointCost, error) {
	gib := r.CheckpointGiB()
	ck := goodput.Checkpoint{SizeGiB: gib}
	var where string
	if b, ok := bucketOf(m, dir); ok {
		ck.Target, where = catalog.CheckpointBucket, "bucket "+b.Bucket+" (gcsfuse at "+b.MountPoint+")"
	} else if l := m.Lustre; l != nil && within(dir, lustreMountPoint(l)) && l.CapacityGiB > 0 && l.Throughput > 0 {
		ck.Target, ck.LustreCapacityGiB, ck.LustreThroughput = catalog.CheckpointLustre, l.CapacityGiB, l.Throughput
		where = fmt.Sprintf("Managed Lustre %s (%d GiB at %d MBps/TiB)", l.FSName, l.CapacityGiB, l.Throughput)
	} else if h := m.Home; h.Tier != "" && within(dir, homeMountPoint(h)) {
		if _, ok := catalog.FilestoreWriteMBps(h.Tier, h.CapacityGiB); !ok {
			return checkpointCost{}, nil
		}
		ck.Target, ck.FilestoreTier, ck.FilestoreCapacityGiB = catalog.CheckpointFilestore, h.Tier, h.CapacityGiB
		where = fmt.Sprintf("Filestore /home (%s, %d GiB)", h.Tier, h.CapacityGiB)
	} else {
		return checkpointCost{}, nil
	}
	c, err := goodput.CheckpointCostFor(machineType, nodes, ck)
	if err != nil {
		return checkpointCost{}, err
	}
	return checkpointCost{cost: c, gib: gib, where: where, known: true}, nil
}

func homeMountPoint(h cc.NFSMount) string {
	if h.MountPoint == "" {
		return "/home"
	}
	return h.MountPoint
}

func lustreMountPoint(l *cc.LustreMount) string {
	if l.MountPoint == "" {
		return cc.DefaultLustreMountPoint
	}
	return l.MountPoint
}

// within reports whether dir is mountPoint or below it.
func within(dir, mountPoint string) bool {
	dir, mp := path.Clean(dir), path.Clean(mountPoint)
	return dir == mp || strings.HasPrefix(dir, mp+"/")
}

// bucketOf is the Cloud Storage bucket mount dir lies in, if any.
func bucketOf(m cc.Mounts, dir string) (cc.BucketMount, bool) {
	for _, b := range m.Buckets {
		if within(dir, b.MountPoint) {
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

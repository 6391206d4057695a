package recipes

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/slurm/slurmtest"
)

// A private Slurm for this package's tests (slurmtest): two slurmd on one host forming the CPU
// partition "cpu", plus one cloud partition per GPU machine profile whose nodes never boot:
// `sbatch --test-only` checks a script against them without any node up. Started on first use
// and shared by every test of the package; TestMain stops it.

const cpuPartition = "cpu"

type testSlurm struct {
	*slurmtest.Cluster
	// gpuPartitions maps a machine profile to its partition name.
	gpuPartitions map[string]string
}

var (
	sharedSlurm = &slurmtest.Shared{Options: slurmOptions}
	// gpuPartitions is set with the cluster's options.
	gpuPartitions map[string]string
)

func TestMain(m *testing.M) { os.Exit(sharedSlurm.Main(m)) }

// needSlurm returns the running test Slurm, starting it on first use, or skips the test with the
// reason it cannot run here.
func needSlurm(t testing.TB) *testSlurm {
	t.Helper()
	c := sharedSlurm.Get(t)
	return &testSlurm{Cluster: c, gpuPartitions: gpuPartitions}
}

func slurmOptions() slurmtest.Options {
	maxNodes := map[string]int{}
	for _, r := range List() {
		if r.GPU() && r.Nodes > maxNodes[r.Profile] {
			maxNodes[r.Profile] = r.Nodes
		}
	}
	gpuNodes, gpuParts, names := gpuNodeLines(maxNodes)
	gpuPartitions = names
	return slurmtest.Options{
		Name: "recipes", Partition: cpuPartition, Nodes: []slurmtest.Node{{Name: "n1", CPUs: 1}, {Name: "n2", CPUs: 1}},
		// cred_expire is also how long a requeued job waits before it may start again (120 s by
		// default); the requeue test would spend that idle.
		CredExpire: 5,
		Conf: `SelectTypeParameters=CR_Core
KillWait=20
GresTypes=gpu
ResumeProgram=/bin/true
SuspendProgram=/bin/true
SuspendTime=600
ResumeTimeout=600
` + gpuNodes + gpuParts,
		Commands: []string{"sbatch"},
	}
}

// gpuNodeLines shapes one cloud partition for each GPU machine profile of the recipes, its nodes
// from one machine type of the catalog, as many as the largest recipe of the profile needs.
func gpuNodeLines(maxNodes map[string]int) (nodes, parts string, names map[string]string) {
	names = map[string]string{}
	var nb, pb strings.Builder
	for _, m := range catalog.Machines() {
		n, ok := maxNodes[m.Profile]
		if !ok || !m.HasGPU() || names[m.Profile] != "" {
			continue
		}
		part := "gpu-" + m.Profile
		prefix := strings.ReplaceAll(m.Profile, "-", "")
		names[m.Profile] = part
		fmt.Fprintf(&nb, "NodeName=%s-[0-%d] State=CLOUD CPUs=%d RealMemory=%d Gres=gpu:%s:%d Feature=%s\n",
			prefix, n-1, m.CPUs, m.MemoryMB, m.GPU.SlurmType, m.GPU.Count, m.Profile)
		fmt.Fprintf(&pb, "PartitionName=%s Nodes=%s-[0-%d] MaxTime=INFINITE State=UP\n", part, prefix, n-1)
	}
	return nb.String(), pb.String(), names
}

var (
	freePorts = slurmtest.FreePorts
	waitUntil = slurmtest.WaitFor
)

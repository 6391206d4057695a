package healthpolicy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/recipes"
)

// gpuRuntimeConfig is a cluster on the local runtime with a partition of two g2-standard-4 nodes
// (one L4 each: GPU tool stand-ins and device files), a health policy whose gpu and ecc checks
// reimage a failed node, and the CPU recipe training on both nodes with checkpoints every 10 s.
func gpuRuntimeConfig(agentPath, agentSHA string) string {
	return acctest.RuntimeClusterConfig("hhg", agentPath, agentSHA) + acctest.RuntimePartitionConfig("gpu", "gpu", "g2-standard-4", 2) + `

resource "hypercompute_health_policy" "gpu" {
  cluster          = hypercompute_training_cluster.c.id
  name             = "gpu"
  partitions       = [hypercompute_node_partition.gpu.name]
  interval_seconds = 2
  requeue_jobs     = true
  limits           = { max_unavailable_percent = 50 }
  checks = [
    { name = "gpu", schedules = ["boot", "periodic"], action = "reimage" },
    { name = "ecc", schedules = ["boot", "periodic"], action = "reimage" },
  ]
  timeouts = { create = "3m", delete = "2m" }
}
` + acctest.RuntimeTinyGPTJob("train", "gpu", `  overrides  = { max_steps = 150 }
  checkpoint = { interval = "10s" }
  wait_for   = "running"
  depends_on = [hypercompute_health_policy.gpu]
`)
}

// The proof, through Terraform on the local runtime: uncorrected ECC errors injected
// into a node's GPU stand-in while the CPU recipe trains on it → real Slurm drains the node with
// the ecc check's reason → the controller requeues the job and reimages the node through the
// emulator's Compute API (a new VM from the partition's template, a new boot) → the node is back
// to IDLE → the job resumes from its last checkpoint and completes; the records show the reimage.
func TestAccHealthPolicy_gpuFaultUnderARecipeJob(t *testing.T) {
	acctest.RequireTorch(t)
	env, agentPath, agentSHA := acctest.NewSlurmRuntime(t)
	run := func(vm string, argv ...string) (string, error) {
		out, err := env.RunOn(30*time.Second, vm, argv...)
		return strings.TrimSpace(out), err
	}
	slurm := func(cmd string) string {
		s, _ := env.Slurm(30*time.Second, "hhg-controller", cmd)
		return strings.TrimSpace(s)
	}
	svc := env.Server.Component("instances").(*instances.Service)
	controllerKey := instances.InstanceKey(acctest.Project, acctest.Zone, "hhg-controller")
	attr := func(name string) string {
		return svc.GuestAttributes(controllerKey).Values[cc.GuestAttributeNamespace][name]
	}
	report := func() (cc.JobReport, recipes.Progress) { return env.JobReport("hhg-controller", "train") }
	waitFor := func(what string, timeout time.Duration, ok func() (string, bool)) error {
		deadline := time.Now().Add(timeout)
		for {
			s, done := ok()
			if done {
				return nil
			}
			if time.Now().After(deadline) {
				r, p := report()
				return fmt.Errorf("waiting for %s: last seen %q\njob %+v progress %+v\n%s\n%s", what, s, r, p,
					slurm("sinfo -N -o '%N %T %E'; squeue"), slurm("tail -n 25 /var/log/hypercompute/agent.log"))
			}
			time.Sleep(300 * time.Millisecond)
		}
	}
	vmID := func(name string) uint64 {
		inst, err := env.Clients().Instances.Get(context.Background(), &computepb.GetInstanceRequest{Project: acctest.Project, Zone: acctest.Zone, Instance: name})
		if err != nil {
			return 0
		}
		return inst.GetId()
	}
	proof := func(*terraform.State) error {
		var before recipes.Progress
		var job cc.JobReport
		if err := waitFor("a checkpoint of the running job", 3*time.Minute, func() (string, bool) {
			job, before = report()
			return fmt.Sprintf("%s step %d checkpoint %d", job.State, before.Step, before.LastCheckpointStep), job.State == "RUNNING" && before.LastCheckpointStep > 0
		}); err != nil {
			return err
		}
		nodes, err := cc.ExpandHostlist(job.Nodes)
		if err != nil || len(nodes) != 2 {
			return fmt.Errorf("the job runs on %q, want both nodes: %v", job.Nodes, err)
		}
		node := nodes[0]
		if gres := slurm("sinfo -h -N -n " + node + " -o %G"); gres != "gpu:l4:1" {
			return fmt.Errorf("%s has gres %q, want gpu:l4:1", node, gres)
		}
		idBefore := vmID(node)
		resp, err := http.Post(env.URL+"/emulator/v1/projects/"+acctest.Project+"/zones/"+acctest.Zone+"/instances/"+node+":gpuFault", "application/json", strings.NewReader(`{"uncorrectedEcc": 2}`))
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s:gpuFault answered %s", node, resp.Status)
		}
		state := func() string { return slurm("sinfo -h -N -n " + node + " -o '%T|%E'") }
		if err := waitFor(node+" drained by the ecc check", 60*time.Second, func() (string, bool) {
			s := state()
			return s, strings.HasPrefix(s, "drain") && strings.Contains(s, "hc:ecc: GPU 0 has 2 uncorrected volatile ECC errors")
		}); err != nil {
			return err
		}
		if err := waitFor(node+" reimaged and back in service", 4*time.Minute, func() (string, bool) {
			s := state()
			return s, vmID(node) != idBefore && vmID(node) != 0 && strings.HasSuffix(s, "|none") && !strings.HasPrefix(s, "drain") && !strings.ContainsAny(s, "*~#%")
		}); err != nil {
			return err
		}
		var after recipes.Progress
		if err := waitFor("the job to resume and complete", 5*time.Minute, func() (string, bool) {
			job, after = report()
			return fmt.Sprintf("%s restarts %d step %d", job.State, after.Restarts, after.Step), job.State == "COMPLETED"
		}); err != nil {
			return err
		}
		if after.Restarts < 1 || after.Step != 150 {
			return fmt.Errorf("the job completed with %d restarts at step %d; want a restart and step 150", after.Restarts, after.Step)
		}
		out, _ := run("hhg-controller", "sh", "-c", "grep -o 'resumed from .* at step [0-9]*' "+job.LogPath+" | tail -n 1")
		i := strings.LastIndex(out, " at step ")
		if i < 0 {
			return fmt.Errorf("the requeued run did not resume from a checkpoint (log: %q)", out)
		}
		if at, _ := strconv.Atoi(out[i+len(" at step "):]); at < before.LastCheckpointStep || at == 0 {
			return fmt.Errorf("the requeued run resumed at step %d, behind the checkpoint at step %d taken before the fault", at, before.LastCheckpointStep)
		}
		// Every rank recorded its own compute time per step, which the straggler check compares.
		for rank, want := range nodes {
			raw, err := run("hhg-controller", "cat", fmt.Sprintf("/home/.hypercompute/jobs/train/%s/%d.json", recipes.RankTimingsDir, rank))
			if err != nil {
				return err
			}
			var rt recipes.RankTiming
			if err := json.Unmarshal([]byte(raw), &rt); err != nil || rt.Rank != rank || rt.ComputeSeconds <= 0 || !slices.Contains(nodes, rt.Node) {
				return fmt.Errorf("rank %d's timing %q (%v): want its node among %v (rank 0 on %s) and a compute time", rank, raw, err, nodes, want)
			}
		}
		h, _, err := cc.DecodeHealthReport(map[string]string{cc.GuestAttrHealth: attr(cc.GuestAttrHealth)})
		if err != nil {
			return err
		}
		for _, r := range h.Done {
			if r.Node == node && r.Action == cc.ActionReimage && r.Result == "ok" && r.Check == cc.CheckECC {
				return nil
			}
		}
		return fmt.Errorf("the health records show no successful reimage of %s after its ecc failure: %+v", node, h.Done)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{Config: env.Config(gpuRuntimeConfig(agentPath, agentSHA)), Check: proof},
		},
	})
}

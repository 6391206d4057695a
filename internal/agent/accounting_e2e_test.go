package agent_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/agent"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/recipes"
)

// requeueJob runs until it is requeued; its second run (SLURM_RESTART_COUNT=1) ends after a second.
// With PROGRESS set it writes a recipe's progress file, as a recipe that redid 1.25 s would, and
// charged them to its own Slurm job (lost_by_job); a second Slurm job of another generation's
// loss, 30 s, is in the same file and must not count for this one.
const requeueJob = `#!/bin/sh
echo "run ${SLURM_RESTART_COUNT:-0}" >> runs
if [ "${SLURM_RESTART_COUNT:-0}" -ge 1 ]; then
  [ -n "$PROGRESS" ] && printf '{"step":10,"max_steps":10,"restarts":1,"lost_seconds":1.25,"slurm_job_id":"%s","lost_by_job":{"%s":1.25,"999":30}}' "$SLURM_JOB_ID" "$SLURM_JOB_ID" > progress.json
  sleep 1; exit 0
fi
while :; do sleep 0.1; done
`

// One cluster with accounting on: MariaDB and slurmdbd run inside the controller VM, jobs show in
// sacct with their states and restarts, sshare and sreport answer, and the goodput the controller
// reports (and the login node's `hypercompute-agent goodput`) matches what sacct recorded.
func TestAccountingOnTheLocalRuntime(t *testing.T) {
	requireSlurm(t)
	for _, bin := range []string{"mariadbd", "mariadb-install-db", "slurmdbd", "sacct", "sacctmgr"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("skipping: %s is not installed (run scripts/install-deps.sh)", bin)
		}
	}
	start := time.Now()
	c := startCloud(t)
	agentPath, agentSum := buildAgent(t)
	c.network()
	_, fsIP := c.createFilestore("home")
	cluster := cc.Cluster{
		Name:       "ac",
		Controller: cc.Controller{Hostname: cc.ControllerName("ac")},
		LoginCount: 1,
		Mounts:     cc.Mounts{Home: cc.NFSMount{Server: fsIP, Share: "/home"}},
		Agents:     []cc.AgentRef{{Version: testVersion, URL: "file://" + agentPath, SHA256: agentSum}},
		Accounting: &cc.Accounting{Enabled: true, QOS: []string{"high", "low"}, FairShare: true,
			Retention: cc.Retention{JobDays: 30, StepDays: 7, EventDays: 90}},
	}
	parts := []cc.Partition{{Name: "cpu", MachineType: "e2-standard-2", StaticNodes: 1, Default: true}}
	partition, err := cc.EncodePartition(cluster.Name, parts[0])
	if err != nil {
		t.Fatal(err)
	}
	controller, login, node := cc.ControllerName("ac"), cc.LoginName("ac", 0), cc.NodeName(parts[0].Prefix("ac"), 0)
	ctlItems := payload(t, cluster, cc.RoleController, nil, nil)
	ctlItems[cc.ClusterKey] = encodeCluster(t, cluster)
	ctlItems[cc.PartitionKey("cpu")] = string(partition)
	c.createVM(controller, ctlItems)
	c.createVM(login, payload(t, cluster, cc.RoleLogin, nil, nil))
	c.createVM(node, payload(t, cluster, cc.RoleCompute, &parts[0], nil))

	slurm := func(cmd string) string {
		t.Helper()
		return strings.TrimSpace(c.exec(controller, "sh", "-c", "SLURM_CONF=/etc/slurm/slurm.conf "+cmd))
	}
	waitSlurm := func(what, cmd string, ok func(string) bool, timeout time.Duration) string {
		t.Helper()
		deadline := time.Now().Add(timeout)
		for {
			out := slurm(cmd)
			if ok(out) {
				return out
			}
			if time.Now().After(deadline) {
				t.Fatalf("waiting for %s: %s printed %q\n--- agent log ---\n%s", what, cmd, out,
					c.tryExec(controller, "sh", "-c", "tail -n 30 /var/log/hypercompute/*.log /var/log/slurm/slurmdbd.log"))
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	c.waitAttrs(controller, "phase=ready", 120*time.Second, func(a map[string]string) bool { return a[cc.GuestAttrPhase] == cc.PhaseReady }, true)
	c.waitAttrs(node, "phase=ready", 90*time.Second, func(a map[string]string) bool { return a[cc.GuestAttrPhase] == cc.PhaseReady }, true)
	waitSlurm(node+" idle", "sinfo -h -N -n "+node+" -o %T", func(s string) bool { return s == "idle" }, 30*time.Second)
	t.Logf("cluster up after %s", time.Since(start).Round(time.Millisecond))

	t.Run("MariaDB and slurmdbd run inside the controller, the password stays there", func(t *testing.T) {
		for _, d := range []string{"mariadbd", "slurmdbd"} {
			if out := c.tryExec(controller, "pgrep", "-x", d); strings.TrimSpace(out) == "" || strings.Contains(out, "exit status") {
				t.Errorf("%s does not run on the controller: %q", d, out)
			}
		}
		// The datadir is the VM's own: the database is in it and not on the machine's.
		if out := c.exec(controller, "sh", "-c", "test -d /var/lib/mysql/"+cc.AccountingDatabaseName+" && echo yes"); out != "yes\n" {
			t.Errorf("the controller's /var/lib/mysql has no %s", cc.AccountingDatabaseName)
		}
		if _, err := os.Stat("/var/lib/mysql/" + cc.AccountingDatabaseName); err == nil {
			t.Errorf("the accounting database landed in this machine's /var/lib/mysql")
		}
		if out := c.exec(controller, "stat", "-c", "%a %U", "/var/lib/hypercompute/accounting/db-password", "/etc/slurm/slurmdbd.conf"); out != "600 root\n600 slurm\n" {
			t.Errorf("password file and slurmdbd.conf modes and owners: %q", out)
		}
		conf := c.exec(controller, "cat", "/etc/slurm/slurmdbd.conf")
		for _, want := range []string{"PurgeJobAfter=30days", "PurgeStepAfter=7days", "PurgeEventAfter=90days", "StorageLoc=slurm_acct_db"} {
			if !strings.Contains(conf, want+"\n") {
				t.Errorf("slurmdbd.conf lacks %s", want)
			}
		}
		password := strings.TrimSpace(c.exec(controller, "cat", "/var/lib/hypercompute/accounting/db-password"))
		if len(password) < 16 {
			t.Fatalf("password %d characters", len(password))
		}
		// The scan must be able to fail: it finds the password where it is.
		if !strings.Contains(conf, password) {
			t.Fatal("slurmdbd.conf does not hold the password the scan looks for")
		}
		places := map[string]string{
			"the controller's metadata":   c.metadataText(controller),
			"the controller's attributes": fmt.Sprint(c.attrs(controller)),
			"the agent's logs":            c.exec(controller, "sh", "-c", "cat /var/log/hypercompute/*.log"),
			"the shared /home":            c.exec(controller, "sh", "-c", "grep -r -l -F -e '"+password+"' /home || true"),
		}
		for where, text := range places {
			if strings.Contains(text, password) {
				t.Errorf("the database password appears in %s", where)
			}
		}
		if out := c.exec(controller, "sh", "-c", "ls /home/.hypercompute/slurm"); strings.Contains(out, "slurmdbd") {
			t.Errorf("slurmdbd.conf was published to /home: %s", out)
		}
	})

	t.Run("cluster, QoS and fair share in slurmdbd", func(t *testing.T) {
		if out := slurm("sacctmgr -n -P list cluster format=cluster"); out != "ac" {
			t.Errorf("sacctmgr lists clusters %q", out)
		}
		qos := strings.Fields(slurm("sacctmgr -n -P list qos format=name"))
		for _, q := range []string{"normal", "high", "low"} {
			if !strings.Contains(" "+strings.Join(qos, " ")+" ", " "+q+" ") {
				t.Errorf("QoS %s missing from %v", q, qos)
			}
		}
		if out := slurm("sacctmgr -n -P list assoc where account=root user= format=qos"); out != "high,low,normal" {
			t.Errorf("the root account may use QoS %q", out)
		}
		if out := slurm("scontrol show config | grep -E '^(PriorityType|AccountingStorageType) '"); !strings.Contains(out, "priority/multifactor") || !strings.Contains(out, "accounting_storage/slurmdbd") {
			t.Errorf("slurmctld runs with %q", out)
		}
		if out := slurm("sshare -n -P -a -o Account,User,RawShares"); !strings.Contains(out, "root|root|") {
			t.Errorf("sshare printed %q, want the root user's share", out)
		}
	})

	// Jobs: one completes, one fails, two are requeued once while running (one of them a recipe
	// with a progress file).
	c.exec(controller, "sh", "-c", "mkdir -p /home/acct/plain /home/acct/recipe && cat > /home/acct/job.sh <<'EOF'\n"+requeueJob+"EOF\nchmod 755 /home/acct/job.sh")
	ok := slurm("sbatch --parsable -p cpu -c 1 -o /dev/null -J ok --wrap 'sleep 1'")
	failed := slurm("sbatch --parsable -p cpu -c 1 -o /dev/null -J failed --wrap 'sleep 1; exit 3'")
	waitSlurm("jobs ok and failed to end", "squeue -h -j "+ok+","+failed+" -o %i | wc -l", func(s string) bool { return s == "0" }, 30*time.Second)
	plain := slurm("sbatch --parsable --requeue -p cpu -c 1 -o /dev/null -J plain -D /home/acct/plain /home/acct/job.sh")
	recipe := slurm("sbatch --parsable --requeue -p cpu -c 1 -o /dev/null -J recipe -D /home/acct/recipe --export=ALL,PROGRESS=1 /home/acct/job.sh")
	for _, dir := range []string{"plain", "recipe"} {
		waitSlurm(dir+" running", "cat /home/acct/"+dir+"/runs 2>/dev/null || true", func(s string) bool { return s == "run 0" }, 30*time.Second)
	}
	time.Sleep(2 * time.Second)
	slurm("scontrol requeue " + plain + "," + recipe)
	// A requeued job may start again once its old credential expired (cred_expire, 120 s); the
	// credential of its next run is a new one, so the test lets it begin now.
	waitSlurm("requeued jobs pending", "squeue -h -j "+plain+","+recipe+" -o %T | sort -u", func(s string) bool { return s == "PENDING" }, 30*time.Second)
	time.Sleep(1100 * time.Millisecond)
	slurm("scontrol update jobid=" + plain + " starttime=now; scontrol update jobid=" + recipe + " starttime=now")
	waitSlurm("requeued jobs to end", "squeue -h -j "+plain+","+recipe+" -o %i | wc -l", func(s string) bool { return s == "0" }, 60*time.Second)

	type record struct {
		state          string
		elapsed        float64
		eligible, strt time.Time
	}
	sacct := func() map[string][]record {
		out := slurm("sacct -a -X -D -P -n -o JobIDRaw,State,ElapsedRaw,Eligible,Start -j " + strings.Join([]string{ok, failed, plain, recipe}, ","))
		recs := map[string][]record{}
		for _, line := range strings.Split(out, "\n") {
			f := strings.Split(line, "|")
			if len(f) != 5 {
				t.Fatalf("sacct line %q", line)
			}
			e, _ := strconv.ParseFloat(f[2], 64)
			el, _ := time.ParseInLocation("2006-01-02T15:04:05", f[3], time.Local)
			st, _ := time.ParseInLocation("2006-01-02T15:04:05", f[4], time.Local)
			recs[f[0]] = append(recs[f[0]], record{strings.Fields(f[1])[0], e, el, st})
		}
		return recs
	}
	// slurmctld sends a job's end to slurmdbd right after it ends; wait until all are there.
	var recs map[string][]record
	deadline := time.Now().Add(30 * time.Second)
	for {
		recs = sacct()
		if len(recs[ok]) == 1 && recs[ok][0].state == "COMPLETED" && len(recs[plain]) == 2 && recs[plain][1].state == "COMPLETED" && len(recs[recipe]) == 2 && recs[recipe][1].state == "COMPLETED" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sacct -D records: %v", recs)
		}
		time.Sleep(300 * time.Millisecond)
	}

	t.Run("sacct shows states and restarts", func(t *testing.T) {
		if r := recs[failed]; len(r) != 1 || r[0].state != "FAILED" {
			t.Errorf("job failed: %v", r)
		}
		for _, id := range []string{plain, recipe} {
			if r := recs[id]; r[0].state != "REQUEUED" || r[0].elapsed < 2 {
				t.Errorf("job %s's first run: %+v, want REQUEUED after at least 2 s", id, r[0])
			}
		}
		// Without -D, sacct shows the last run only.
		if out := slurm("sacct -X -n -P -o State -j " + plain); out != "COMPLETED" {
			t.Errorf("sacct without duplicates: %q", out)
		}
		if out := slurm("sreport -P cluster utilization start=now-1days end=now"); !strings.Contains(out, "Cluster Utilization") {
			t.Errorf("sreport printed %q", out)
		}
	})

	// What the report must say, from sacct's records: run is the sum of every run's elapsed time,
	// lost the elapsed time of the requeued run (or the recipe's own lost_seconds).
	sum := func(id string) (run, wait float64) {
		for _, r := range recs[id] {
			run += r.elapsed
			// sacct says Eligible=Unknown for some runs of a requeued job (seen under load): no wait
			// is known for such a run, as the report counts it.
			if !r.strt.IsZero() && !r.eligible.IsZero() {
				wait += math.Max(0, r.strt.Sub(r.eligible).Seconds())
			}
		}
		return run, wait
	}
	wantLost := map[string]float64{ok: 0, failed: 0, plain: recs[plain][0].elapsed, recipe: 1.25}
	wantRestarts := map[string]int{ok: 0, failed: 0, plain: 1, recipe: 1}
	wantState := map[string]string{ok: "COMPLETED", failed: "FAILED", plain: "COMPLETED", recipe: "COMPLETED"}

	t.Run("the controller reports goodput per job and partition", func(t *testing.T) {
		var r cc.GoodputReport
		deadline := time.Now().Add(30 * time.Second)
		for {
			a := c.attrs(controller)
			if json.Unmarshal([]byte(a[cc.GuestAttrGoodputPrefix+"1d"]), &r) == nil && r.Total.Jobs == 4 && r.Total.Restarts == 2 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("goodput-1d: %s", a[cc.GuestAttrGoodputPrefix+"1d"])
			}
			time.Sleep(500 * time.Millisecond)
		}
		var totalRun, totalLost float64
		for _, j := range r.Jobs {
			run, wait := sum(j.JobID)
			if j.State != wantState[j.JobID] || j.RunSeconds != run || j.LostSeconds != wantLost[j.JobID] || j.Restarts != wantRestarts[j.JobID] || j.WaitSeconds != wait {
				t.Errorf("job %s (%s): %+v; sacct says run %.0f s, wait %.0f s, lost %.2f s, %d restarts, %s",
					j.JobID, j.Name, j.GoodputFigures, run, wait, wantLost[j.JobID], wantRestarts[j.JobID], wantState[j.JobID])
			}
			totalRun += run
			totalLost += wantLost[j.JobID]
		}
		p := r.Partitions["cpu"]
		if p.Jobs != 4 || p.RunSeconds != totalRun || p.LostSeconds != totalLost {
			t.Errorf("partition cpu: %+v; want 4 jobs, run %.0f s, lost %.2f s", p, totalRun, totalLost)
		}
		if want := (totalRun - totalLost) / totalRun; abs(p.Runtime-want) > 1e-9 || p.Runtime >= 1 {
			t.Errorf("runtime goodput %.4f, want %.4f", p.Runtime, want)
		}
	})

	t.Run("goodput --since on the login node", func(t *testing.T) {
		c.waitAttrs(login, "phase=ready", 60*time.Second, func(a map[string]string) bool { return a[cc.GuestAttrPhase] == cc.PhaseReady }, true)
		out := c.exec(login, "bash", "-lc", agentPath+" goodput --since 1d")
		t.Logf("hypercompute-agent goodput --since 1d:\n%s", out)
		for id, name := range map[string]string{ok: "ok", failed: "failed", plain: "plain", recipe: "recipe"} {
			run, _ := sum(id)
			row := regexp.MustCompile(`(?m)^` + id + `\s+` + name + `\s+cpu\s+` + wantState[id] + `\s+\d+\s+(\d+)\s+(\d+)\s+(\d+)\s`).FindStringSubmatch(out)
			if row == nil || row[1] != strconv.Itoa(int(run)) || row[2] != strconv.Itoa(int(wantLost[id]+0.5)) || row[3] != strconv.Itoa(wantRestarts[id]) {
				t.Errorf("job %s's row %v; want run %.0f, lost %.0f, restarts %d", id, row, run, wantLost[id], wantRestarts[id])
			}
		}
	})

	t.Run("a recipe job requeued once: lost time from its progress file", func(t *testing.T) {
		if err := exec.Command("/usr/bin/python3", "-c", "import torch.distributed").Run(); err != nil {
			t.Skip("skipping: /usr/bin/python3 cannot import torch (install python3-torch: scripts/install-deps.sh)")
		}
		job := recipes.Job{
			Schema: 1, Name: "tiny", Cluster: "ac", Partition: "cpu",
			Model: recipes.ModelTinyGPT, Size: "2m", Mode: recipes.ModePretrain, Profile: recipes.ProfileCPU,
			Nodes: 1, TasksPerNode: 1, MaxSteps: 1000000,
			Hyperparameters: map[string]string{"micro_batch": "4", "seq_length": "16", "log_every": "1"},
			Checkpoint:      recipes.Checkpoint{Dir: "/home/acct/tiny/ckpt", IntervalSeconds: 2, KeepLast: 2},
			RunDir:          "/home/acct/tiny/run", ExportPath: "/home/acct/tiny/export", SignalLead: 30, Generation: "g1",
		}
		b, err := json.Marshal(job)
		if err != nil {
			t.Fatal(err)
		}
		c.setMetadata(controller, cc.JobKey("tiny"), string(b))
		report := func(what string, ok func(cc.JobReport, recipes.Progress) bool) (cc.JobReport, recipes.Progress) {
			t.Helper()
			deadline := time.Now().Add(90 * time.Second)
			for {
				var r cc.JobReport
				var p recipes.Progress
				if json.Unmarshal([]byte(c.attrs(controller)[cc.JobAttr("tiny")]), &r) == nil {
					json.Unmarshal(r.Progress, &p)
					if ok(r, p) {
						return r, p
					}
				}
				if time.Now().After(deadline) {
					t.Fatalf("waiting for the recipe job %s: %+v\n%s", what, r, c.tryExec(controller, "sh", "-c", "tail -n 20 /home/acct/tiny/run/slurm-*.out"))
				}
				time.Sleep(300 * time.Millisecond)
			}
		}
		r, before := report("to checkpoint", func(r cc.JobReport, p recipes.Progress) bool { return r.JobID != 0 && p.LastCheckpointStep > 0 })
		id := strconv.Itoa(r.JobID)
		slurm("scontrol requeue " + id)
		report("to resume", func(r cc.JobReport, p recipes.Progress) bool { return p.Restarts >= 1 && p.Step > before.Step })
		slurm("scancel " + id)
		waitSlurm("the recipe job to end", "squeue -h -j "+id+" -o %i | wc -l", func(s string) bool { return s == "0" }, 30*time.Second)
		var p recipes.Progress
		if err := json.Unmarshal([]byte(c.exec(controller, "cat", "/home/acct/tiny/run/"+recipes.ProgressFile)), &p); err != nil || p.Restarts != 1 {
			t.Fatalf("progress file: %+v %v", p, err)
		}
		var runs []float64
		waitSlurm("sacct to hold both runs", "sacct -X -D -P -n -o State,ElapsedRaw -j "+id, func(s string) bool {
			lines := strings.Split(s, "\n")
			if len(lines) != 2 || !strings.HasPrefix(lines[0], "REQUEUED|") || !strings.HasPrefix(lines[1], "CANCELLED") {
				return false
			}
			runs = runs[:0]
			for _, l := range lines {
				e, _ := strconv.ParseFloat(l[strings.LastIndex(l, "|")+1:], 64)
				runs = append(runs, e)
			}
			return true
		}, 30*time.Second)
		var g cc.GoodputReport
		var got cc.JobGoodput
		deadline := time.Now().Add(30 * time.Second)
		for got.JobID == "" || got.State != "CANCELLED" {
			if time.Now().After(deadline) {
				t.Fatalf("goodput-1d has no ended recipe job %s: %+v", id, g.Jobs)
			}
			time.Sleep(500 * time.Millisecond)
			json.Unmarshal([]byte(c.attrs(controller)[cc.GuestAttrGoodputPrefix+"1d"]), &g)
			for _, j := range g.Jobs {
				if j.JobID == id {
					got = j
				}
			}
		}
		// The recipe's own record of the work this job lost (its share in the progress file of its
		// run directory, which is its working directory), not the whole first run.
		lost, charged := p.LostByJob[id]
		if !charged || abs(lost-p.LostSeconds) > 1e-9 {
			t.Fatalf("progress file charges %v to job %s, want its whole %.3f s", p.LostByJob, id, p.LostSeconds)
		}
		if got.Name != "tiny" || got.Restarts != 1 || got.RunSeconds != runs[0]+runs[1] || abs(got.LostSeconds-lost) > 1e-9 {
			t.Errorf("recipe job in the report: %+v; sacct ran %v s, the progress file lost %.3f s", got, runs, lost)
		}
		// One computation: the login node's command, which reads sacct and the progress file itself,
		// prints the same run, lost and restarts for the job.
		out := c.exec(login, "bash", "-lc", agentPath+" goodput --since 1d")
		row := regexp.MustCompile(`(?m)^` + id + `\s+tiny\s+cpu\s+CANCELLED\s+\d+\s+(\d+)\s+(\d+)\s+(\d+)\s`).FindStringSubmatch(out)
		if row == nil || row[1] != strconv.Itoa(int(math.Round(got.RunSeconds))) || row[2] != strconv.Itoa(int(math.Round(got.LostSeconds))) || row[3] != "1" {
			t.Errorf("the login node's goodput row for job %s: %v; the controller reports %+v\n%s", id, row, got.GoodputFigures, out)
		}
		t.Logf("recipe job %s: runs %v s, lost %.3f s (progress file), runtime goodput %.3f", id, runs, lost, got.Runtime)
	})
	t.Run("the controller serves the report", func(t *testing.T) {
		// The page a person opens (through an IAP tunnel) from the controller: the same figures as
		// `goodput`, as plots.
		page := c.exec(controller, "curl", "-sS", "--fail-with-body", "http://"+controller+agent.ReportAddr+"/report?since=1d")
		for _, want := range []string{"<title>Goodput and health report: ac</title>", "<svg", "tiny"} {
			if !strings.Contains(page, want) {
				t.Errorf("the controller's /report has no %q:\n%.2000s", want, page)
			}
		}
	})
	t.Logf("done after %s", time.Since(start).Round(time.Millisecond))
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

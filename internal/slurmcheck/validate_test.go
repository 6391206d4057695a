package slurmcheck

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// A hand-written cloud GPU configuration, the shape the facts file proved.
const gpuConf = `ClusterName=t
SlurmctldHost=ctl(10.0.0.2)
SlurmUser=slurm
AuthType=auth/munge
AuthAltTypes=auth/jwt
AuthAltParameters=jwt_key=/etc/slurm/jwt_hs256.key
StateSaveLocation=/var/spool/slurm/ctld
ProctrackType=proctrack/cgroup
TaskPlugin=task/cgroup,task/affinity
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
MailProg=/bin/true
GresTypes=gpu
SlurmctldParameters=cloud_dns,idle_on_node_suspend
PrivateData=cloud
ResumeProgram=/nonexistent/resume
SuspendProgram=/nonexistent/suspend
SuspendTime=300
NodeName=t-a3-[0-31] CPUs=208 RealMemory=1800000 Gres=gpu:h100:8 Feature=a3,h100 State=CLOUD
NodeName=t-cpu-0 CPUs=4 RealMemory=15000 Feature=n2 State=CLOUD
NodeSet=a3nodes Feature=a3
PartitionName=a3 Nodes=a3nodes Default=YES ResumeTimeout=1200 State=UP
PartitionName=cpu Nodes=t-cpu-0 State=UP
`

var gres = []byte("NodeName=t-a3-[0-31] Name=gpu Type=h100 File=/dev/nvidia[0-7]\n")

func validateCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestValidateLoadsCloudGPUConfig(t *testing.T) {
	Require(t)
	t.Parallel()
	res, err := Validate(validateCtx(t), []byte(gpuConf), gres, []byte("ConstrainCores=yes\n"))
	if err != nil {
		t.Fatal(err)
	}
	a3, ok := res.Partition("a3")
	if !ok || a3.TotalNodes != 32 || !a3.Default || a3.NodeSets != "a3nodes" || a3.Nodes != "t-a3-[0-31]" || a3.ResumeTimeout != "1200" {
		t.Errorf("partition a3 = %+v", a3)
	}
	n, ok := res.Node("t-a3-17")
	if !ok || n.Gres != "gpu:h100:8" || n.CPUs != 208 || n.RealMemoryMB != 1800000 ||
		!slices.Equal(n.Features, []string{"a3", "h100"}) || n.State != "IDLE+CLOUD+POWERED_DOWN" {
		t.Errorf("node t-a3-17 = %+v", n)
	}
	if len(res.NodesOf("cpu")) != 1 {
		t.Errorf("partition cpu nodes = %v", res.NodesOf("cpu"))
	}
	want := []SinfoRow{
		{Partition: "a3", Default: true, Nodes: 32, State: "idle~", Gres: "gpu:h100:8", Features: "a3,h100"},
		{Partition: "cpu", Nodes: 1, State: "idle~", Gres: "(null)", Features: "n2"},
	}
	if !slices.Equal(res.Sinfo, want) {
		t.Errorf("sinfo = %+v, want %+v", res.Sinfo, want)
	}
	if !slices.Equal(res.Stubbed, []string{"ResumeProgram=/nonexistent/resume", "SuspendProgram=/nonexistent/suspend"}) {
		t.Errorf("Stubbed = %v", res.Stubbed)
	}
	if len(res.Warnings) != 0 {
		t.Errorf("warnings: %v", res.Warnings)
	}
}

func rejected(t *testing.T, err error) *RejectedError {
	t.Helper()
	var rej *RejectedError
	if !errors.As(err, &rej) {
		t.Fatalf("err = %v, want a *RejectedError", err)
	}
	return rej
}

func TestValidateRejectsWithSlurmctldText(t *testing.T) {
	Require(t)
	tests := []struct {
		name, conf string
		exit       int
		want       []string
	}{
		{"unknown key", gpuConf + "FooBar=1\n", 1, []string{
			"error: _parse_next_key: Parsing error at unrecognized key: FooBar",
			"fatal: Unable to process configuration file",
		}},
		{"key only newer Slurm knows", gpuConf + "SuspendExcStates=down\n", 1, []string{
			"unrecognized key: SuspendExcStates",
		}},
		{"partition naming unknown nodes", gpuConf + "PartitionName=bad Nodes=nosuch-[0-99] State=UP\n", 1, []string{
			`error: _find_node_record: lookup failure for node "nosuch-0"`,
			"(95 more errors); fatal: Invalid node names in partition bad",
		}},
		// The message names the caller's file and line, not the sandbox's.
		{"unknown partition key", gpuConf + "PartitionName=p2 Nodes=t-cpu-0 PowerDownOnIdle=YES\n", 1, []string{
			"unrecognized key: PowerDownOnIdle",
			`Parse error in file slurm.conf line 24: " PowerDownOnIdle=YES"`,
		}},
		{"no controller", strings.Replace(gpuConf, "SlurmctldHost=ctl(10.0.0.2)\n", "", 1), 1, []string{
			"No SlurmctldHost defined",
		}},
		{"missing GresTypes drops the GRES silently", strings.Replace(gpuConf, "GresTypes=gpu\n", "", 1), -1, []string{
			"node t-a3-0 declares Gres=gpu:h100:8 but slurmctld loaded Gres=(null) (is the GRES type missing from GresTypes?)",
		}},
		{"NodeSet matching nothing", strings.Replace(gpuConf, "NodeSet=a3nodes Feature=a3", "NodeSet=a3nodes Feature=a3x", 1), -1, []string{
			"partition a3 has no nodes: Nodes=a3nodes matches none",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, err := Validate(validateCtx(t), []byte(tc.conf), gres, nil)
			rej := rejected(t, err)
			if rej.ExitCode != tc.exit {
				t.Errorf("ExitCode = %d, want %d", rej.ExitCode, tc.exit)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
			if res == nil || res.Log == "" {
				t.Error("a rejection must come with slurmctld's log")
			}
		})
	}
}

// Strict mode keeps program paths: a ResumeProgram missing on this host
// disables power saving, which slurmctld only logs.
func TestValidateStrictProgramsCatchesMissingResumeProgram(t *testing.T) {
	Require(t)
	t.Parallel()
	_, err := Validator{StrictPrograms: true}.Validate(validateCtx(t), []byte(gpuConf), gres, nil)
	rej := rejected(t, err)
	if !strings.Contains(err.Error(), "power_save module disabled") || rej.ExitCode != -1 {
		t.Errorf("err = %v (exit %d), want the disabled power_save reported", err, rej.ExitCode)
	}
}

func TestAvailableAndUnavailable(t *testing.T) {
	if err := Available(); err != nil {
		_, verr := Validate(context.Background(), []byte(gpuConf), nil, nil)
		if !errors.Is(verr, ErrUnavailable) {
			t.Errorf("Validate without slurmctld = %v, want ErrUnavailable", verr)
		}
	}
}

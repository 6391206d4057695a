package slurmcheck

import (
	"slices"
	"strings"
	"testing"
)

func TestRewriteConfMovesEverythingIntoTheSandbox(t *testing.T) {
	sb := sandbox{dir: "/sb", mungeSocket: "/sb/run/munge.sock", jwtKey: "/sb/etc/jwt", stub: "/sb/etc/stub",
		slurmctldPort: 7001, slurmdPort: 7002, hostname: "here"}
	conf := strings.Join([]string{
		"ClusterName=c # comment",
		"SlurmctldHost=ctl(10.0.0.2)",
		"SlurmctldHost=backup(10.0.0.3)",
		"BackupController=old",
		"slurmuser=slurm",
		"ResumeProgram=/bin/true",
		"SuspendProgram=/no/such/program",
		"HealthCheckProgram=/no/such/check",
		"AuthAltTypes=auth/jwt",
		"NodeName=n1 CPUs=1 Port=6818",
		"UnknownKey=1",
	}, "\n")
	out, stubbed := rewriteConf([]byte(conf), sb, false)
	lines := strings.Split(string(out), "\n")
	wantLines := map[int]string{
		0:  "ClusterName=c # comment",
		1:  "SlurmctldHost=here(127.0.0.1)",
		2:  "# (validator) SlurmctldHost=backup(10.0.0.3)",
		3:  "# (validator) BackupController=old",
		4:  "SlurmUser=root",
		5:  "ResumeProgram=/bin/true",
		6:  "SuspendProgram=/sb/etc/stub",
		7:  "HealthCheckProgram=/no/such/check",
		9:  "NodeName=n1 CPUs=1 Port=6818",
		10: "UnknownKey=1",
	}
	for i, want := range wantLines {
		if lines[i] != want {
			t.Errorf("line %d = %q, want %q", i+1, lines[i], want)
		}
	}
	for _, want := range []string{"SlurmctldPort=7001", "SlurmdPort=7002", "AuthInfo=socket=/sb/run/munge.sock",
		"StateSaveLocation=/sb/state", "AuthAltParameters=jwt_key=/sb/etc/jwt", "SlurmctldLogFile=/sb/log/slurmctld.log"} {
		if !slices.Contains(lines, want) {
			t.Errorf("rewritten conf lacks %q:\n%s", want, out)
		}
	}
	if !slices.Equal(stubbed, []string{"SuspendProgram=/no/such/program"}) {
		t.Errorf("stubbed = %v", stubbed)
	}
	if _, stubbed := rewriteConf([]byte(conf), sb, true); len(stubbed) != 0 {
		t.Errorf("strict mode stubbed %v", stubbed)
	}
}

func TestParseOneLinersKeepsValuesWithSpaces(t *testing.T) {
	recs := parseOneLiners("NodeName=n1 State=IDLE+DRAIN Reason=bad gpu [root@2024] Gres=gpu:h100:8 TRES=cpu=8,mem=1G\n\n")
	if len(recs) != 1 {
		t.Fatalf("records = %v", recs)
	}
	r := recs[0]
	if r["Reason"] != "bad gpu [root@2024]" || r["Gres"] != "gpu:h100:8" || r["TRES"] != "cpu=8,mem=1G" {
		t.Errorf("record = %v", r)
	}
	rows := parseSinfo("PARTITION NODES STATE GRES AVAIL_FEATURES\na3* 32 idle~ gpu:h100:8 a3,h100\n")
	if len(rows) != 1 || rows[0] != (SinfoRow{Partition: "a3", Default: true, Nodes: 32, State: "idle~", Gres: "gpu:h100:8", Features: "a3,h100"}) {
		t.Errorf("sinfo rows = %+v", rows)
	}
}

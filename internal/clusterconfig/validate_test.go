package clusterconfig_test

import (
	"strings"
	"testing"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

func checkErr(t *testing.T, what string, err error, contains string) {
	t.Helper()
	switch {
	case contains == "" && err != nil:
		t.Errorf("%s: unexpected error %v", what, err)
	case contains != "" && err == nil:
		t.Errorf("%s: no error, want one containing %q", what, contains)
	case contains != "" && !strings.Contains(err.Error(), contains):
		t.Errorf("%s: error %q does not contain %q", what, err, contains)
	}
}

func TestValidateClusterName(t *testing.T) {
	for _, tc := range []struct{ name, contains string }{
		{"ml", ""},
		{strings.Repeat("c", 32), ""},
		{strings.Repeat("c", 33), "at most 32 are allowed"},
		{"ML", "uppercase"},
		{"ml_dev", "other than lowercase letters"},
		{"1ml", "does not start with a lowercase letter"},
		{"", "empty"},
	} {
		checkErr(t, "ValidateClusterName("+tc.name+")", cc.ValidateClusterName(tc.name), tc.contains)
	}
}

func TestNodeNaming(t *testing.T) {
	p := cc.Partition{Name: "A3_Mega", MachineType: "a3-megagpu-8g", StaticNodes: 2, MaxDynamicNodes: 998}
	if got := p.Prefix("ml"); got != "ml-a3-mega" {
		t.Errorf("prefix = %q", got)
	}
	if s, d, all := p.StaticNodeNames("ml"), p.DynamicNodeNames("ml"), p.AllNodeNames("ml"); s != "ml-a3-mega-[0-1]" || d != "ml-a3-mega-d[0-997]" || all != "ml-a3-mega-[0-1],ml-a3-mega-d[0-997]" {
		t.Errorf("hostlists = %q %q %q", s, d, all)
	}
	one := cc.Partition{Name: "dbg", StaticNodes: 1, MaxDynamicNodes: 1}
	if s, d := one.StaticNodeNames("ml"), one.DynamicNodeNames("ml"); s != "ml-dbg-0" || d != "ml-dbg-d0" {
		t.Errorf("single node hostlists = %q %q", s, d)
	}
	for _, tc := range []struct {
		node           string
		index          int
		static, member bool
	}{
		{"ml-a3-mega-0", 0, true, true},
		{"ml-a3-mega-1", 1, true, true},
		{"ml-a3-mega-2", 0, false, false},
		{"ml-a3-mega-d0", 0, false, true},
		{"ml-a3-mega-d997", 997, false, true},
		{"ml-a3-mega-d998", 0, false, false},
		{"ml-a3-mega-d01", 0, false, false},
		{"ml-a3-mega-01", 0, false, false},
		{"ml-a3-mega-d", 0, false, false},
		{"ml-a3-mega-x", 0, false, false},
		{"ml-a3-mega-d-1", 0, false, false},
		{"ml-cpu-1", 0, false, false},
	} {
		i, static, ok := p.NodeIndex("ml", tc.node)
		if ok != tc.member || (ok && (i != tc.index || static != tc.static)) {
			t.Errorf("NodeIndex(%s) = %d %v %v", tc.node, i, static, ok)
		}
	}
	if cc.ControllerName("ml") != "ml-controller" || cc.LoginName("ml", 1) != "ml-login-1" || cc.NodeSetName("a3") != "a3_nodes" {
		t.Error("derived names changed; VMs of existing clusters would be renamed")
	}
}

// A node's name never changes meaning when the counts change: every static name stays static with
// the same index whatever the dynamic count is, and the reverse, and no count makes a static name
// of one partition equal a dynamic name of another.
func TestNodeNamesAreStableAcrossCounts(t *testing.T) {
	kinds := map[string]bool{} // name → static
	for static := 0; static <= 4; static++ {
		for dynamic := 0; dynamic <= 4; dynamic++ {
			if static+dynamic == 0 {
				continue
			}
			p := cc.Partition{Name: "debug", StaticNodes: static, MaxDynamicNodes: dynamic}
			names, err := cc.ExpandHostlist(p.AllNodeNames("c"))
			if err != nil || len(names) != static+dynamic {
				t.Fatalf("static %d dynamic %d: %v %v", static, dynamic, names, err)
			}
			for _, n := range names {
				_, isStatic, ok := p.NodeIndex("c", n)
				if !ok {
					t.Fatalf("%s is not a node of %+v", n, p)
				}
				if was, seen := kinds[n]; seen && was != isStatic {
					t.Errorf("%s changed from static=%v to static=%v at static %d dynamic %d", n, was, isStatic, static, dynamic)
				}
				kinds[n] = isStatic
			}
		}
	}
	// Partition "a-d" has the prefix c-a-d: its static c-a-d-0 differs from a's dynamic c-a-d0.
	a := cc.Partition{Name: "a", StaticNodes: 1, MaxDynamicNodes: 1}
	ad := cc.Partition{Name: "a-d", StaticNodes: 1, MaxDynamicNodes: 1}
	for _, n := range []string{"c-a-d0", "c-a-0"} {
		if _, _, ok := ad.NodeIndex("c", n); ok {
			t.Errorf("%s, a node of partition a, parses as a node of partition a-d", n)
		}
	}
	for _, n := range []string{"c-a-d-0", "c-a-d-d0"} {
		if _, _, ok := a.NodeIndex("c", n); ok {
			t.Errorf("%s, a node of partition a-d, parses as a node of partition a", n)
		}
	}
}

// A scale-down's drained nodes stay in slurm.conf, in their own range's line, until the provider
// writes the partition without the drain.
func TestDrainedNodesStayListed(t *testing.T) {
	p := cc.Partition{Name: "debug", StaticNodes: 1, MaxDynamicNodes: 1, Drain: &cc.Drain{ID: "x", Nodes: "c-debug-[1-2],c-debug-d3,c-other-1"}}
	if s, d := p.SlurmStaticNames("c"), p.SlurmDynamicNames("c"); s != "c-debug-0,c-debug-[1-2]" || d != "c-debug-d0,c-debug-d3" {
		t.Errorf("slurm.conf names = %q %q", s, d)
	}
	if s, d := p.StaticNodeNames("c"), p.DynamicNodeNames("c"); s != "c-debug-0" || d != "c-debug-d0" {
		t.Errorf("declared names = %q %q", s, d)
	}
	for n, want := range map[string]bool{"c-debug-2": true, "c-debug-d3": true, "c-debug-3": false, "c-debug-d1": false, "c-other-1": false} {
		if _, _, ok := p.NodeIndex("c", n); ok != want {
			t.Errorf("NodeIndex(%s) ok = %v, want %v", n, ok, want)
		}
	}
}

// Invalid configurations are refused before anything is rendered, with a
// message that says what to change.
func TestValidateRefusesInvalidConfigurations(t *testing.T) {
	gpu := func(mut func(*cc.Partition)) []cc.Partition {
		p := cc.Partition{Name: "gpu", MachineType: "a3-megagpu-8g", MaxDynamicNodes: 4}
		mut(&p)
		return []cc.Partition{p}
	}
	cluster := func(mut func(*cc.Cluster)) cc.Cluster {
		c := baseCluster("ml")
		mut(&c)
		return c
	}
	none := func(*cc.Cluster) {}
	tests := []struct {
		name     string
		c        cc.Cluster
		parts    []cc.Partition
		contains string
	}{
		{"uppercase cluster", cluster(func(c *cc.Cluster) { c.Name = "ML" }), nil, "uppercase"},
		{"no controller", cluster(func(c *cc.Cluster) { c.Controller = cc.Controller{} }), nil, "controller hostname must be set"},
		{"bad controller address", cluster(func(c *cc.Cluster) { c.Controller.Address = "10.0.0" }), nil, `controller address "10.0.0" is not an IP address`},
		{"too many logins", cluster(func(c *cc.Cluster) { c.LoginCount = 17 }), nil, "login count 17 is out of range"},
		{"no x86 agent", cluster(func(c *cc.Cluster) { c.Agents = []cc.AgentRef{agentARM} }), nil, "needs an x86_64 agent build"},
		{"bad sha", cluster(func(c *cc.Cluster) { c.Agents[0].SHA256 = "ABC" }), nil, "64 lowercase hexadecimal digits"},
		{"shell in URL", cluster(func(c *cc.Cluster) { c.Agents[0].URL = "https://x/$(reboot)" }), nil, "must not contain quotes"},
		{"ftp URL", cluster(func(c *cc.Cluster) { c.Agents[0].URL = "ftp://x/agent" }), nil, "is not supported"},
		{"scheduler list in one entry", cluster(func(c *cc.Cluster) { c.Slurm.SchedulerParameters = []string{"a,b"} }), nil, "one option per entry"},
		{"prolog without interpreter", cluster(func(c *cc.Cluster) { c.Slurm.Prolog = "nvidia-smi" }), nil, "interpreter line"},
		{"owned extra", cluster(func(c *cc.Cluster) { c.Slurm.Extra = map[string]string{"SlurmctldHost": "x"} }), nil, `"SlurmctldHost" cannot be set`},
		{"same ports", cluster(func(c *cc.Cluster) { c.Slurm.SlurmctldPort, c.Slurm.SlurmdPort = 7000, 7000 }), nil, "cannot share port 7000"},
		{"resume timeout too long", cluster(func(c *cc.Cluster) { c.Slurm.ResumeTimeout = 70000 }), nil, "resume_timeout 70000 is out of range"},
		{"relative health check", cluster(func(c *cc.Cluster) { c.Health = &cc.HealthCheck{Program: "check.sh"} }), nil, "must be an absolute path"},
		{"bad health state", cluster(func(c *cc.Cluster) { c.Health = &cc.HealthCheck{Program: "/bin/true", NodeState: "BUSY"} }), nil, `node state "BUSY" is invalid`},
		{"unknown machine type", cluster(none), gpu(func(p *cc.Partition) { p.MachineType = "a3-highgpu-4g" }), `machine type "a3-highgpu-4g" is not known`},
		{"no nodes", cluster(none), gpu(func(p *cc.Partition) { p.MaxDynamicNodes = 0 }), `partition "gpu" has no nodes`},
		{"negative nodes", cluster(none), gpu(func(p *cc.Partition) { p.StaticNodes = -1 }), "cannot be negative"},
		{"reserved partition name", cluster(none), gpu(func(p *cc.Partition) { p.Name = "default" }), "is reserved"},
		{"bad max time", cluster(none), gpu(func(p *cc.Partition) { p.MaxTime = "2 days" }), `"2 days" is not a Slurm time`},
		{"resume retry above a day", cluster(none), gpu(func(p *cc.Partition) { d := 86401; p.ResumeRetryAfter = &d }), "resume_retry_after 86401 is out of range"},
		{"bad feature", cluster(none), gpu(func(p *cc.Partition) { p.Features = []string{"a|b"} }), `node feature "a|b" is invalid`},
		{"owned partition extra", cluster(none), gpu(func(p *cc.Partition) { p.Extra = map[string]string{"Nodes": "x"} }), `partition setting "Nodes" cannot be set`},
		{"newer partition key", cluster(none), gpu(func(p *cc.Partition) { p.Extra = map[string]string{"PowerDownOnIdle": "YES"} }), "Slurm 22.05 refuses to start with it"},
		{"node names too long", cluster(func(c *cc.Cluster) { c.Name = strings.Repeat("c", 32) }),
			gpu(func(p *cc.Partition) { p.Name = strings.Repeat("p", 27); p.MaxDynamicNodes = 1000 }), "VM and host names allow at most 63"},
		{"arm partition without arm agent", cluster(none), gpu(func(p *cc.Partition) { p.MachineType = "a4x-highgpu-4g" }), "no arm64 build of the agent"},
		{"duplicate partition", cluster(none), append(gpu(func(*cc.Partition) {}), gpu(func(*cc.Partition) {})...), `partition "gpu" is declared twice`},
		{"colliding node names", cluster(none), append(gpu(func(p *cc.Partition) { p.Name = "a_b" }), gpu(func(p *cc.Partition) { p.Name = "a-b" })...),
			"would both name their nodes ml-a-b-<index>"},
		{"partition named like the logins", cluster(none), gpu(func(p *cc.Partition) { p.Name = "login" }), "would name its nodes like the login VMs"},
		{"partition named like a login pool", cluster(func(c *cc.Cluster) { c.Cloud = &cc.Cloud{LoginPools: []cc.LoginPool{{Name: "dev", Count: 1}}} }),
			gpu(func(p *cc.Partition) { p.Name = "login-dev" }), `would name its nodes like login pool "dev"'s VMs`},
		{"partition node named like the controller", cluster(func(c *cc.Cluster) { c.Controller.Hostname = "ml-gpu-d1" }), gpu(func(*cc.Partition) {}),
			"would name a node ml-gpu-d1, the controller's host name"},
		{"two defaults", cluster(none), append(gpu(func(p *cc.Partition) { p.Default = true }), gpu(func(p *cc.Partition) { p.Name = "other"; p.Default = true })...),
			`partitions "gpu", "other" are all marked default`},
	}
	for _, tc := range tests {
		err := cc.Validate(tc.c, tc.parts)
		checkErr(t, tc.name, err, tc.contains)
		if _, rerr := cc.RenderSlurmConf(tc.c, tc.parts); rerr == nil {
			t.Errorf("%s: RenderSlurmConf rendered an invalid configuration", tc.name)
		}
	}
	checkErr(t, "valid", cc.Validate(baseCluster("ml"), gpu(func(*cc.Partition) {})), "")
}

func TestValidateSlurmTime(t *testing.T) {
	for _, v := range []string{"UNLIMITED", "infinite", "60", "90:30", "12:00:00", "2-12", "2-12:30", "7-00:00:00"} {
		checkErr(t, v, cc.ValidateSlurmTime(v), "")
	}
	for _, v := range []string{"", "1h", "2 days", "-1", "1-2-3", "1:2:3:4"} {
		checkErr(t, v, cc.ValidateSlurmTime(v), "is not a Slurm time")
	}
}

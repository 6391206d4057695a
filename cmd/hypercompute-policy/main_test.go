package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The policy stage's contract: violations printed one per line, sorted, then a summary; exit 0
// without violations, 1 with, 2 on bad input with a message naming what is wrong.
func TestCheckExitCodes(t *testing.T) {
	fixtures := filepath.Join("..", "..", "internal", "policy", "testdata")
	planOf := func(rule, which string) string { return filepath.Join(fixtures, rule, which+".json") }
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	passJSON, err := os.ReadFile(planOf("shielded_vm", "pass"))
	if err != nil {
		t.Fatal(err)
	}
	// A policy set of one's own: the shared lib.rego of policies/ and a rule.
	lib, err := os.ReadFile(filepath.Join("..", "..", "policies", "lib.rego"))
	if err != nil {
		t.Fatal(err)
	}
	write("custom/lib.rego", string(lib))
	const noNetworks = `package hypercompute.policy

rules.no_networks := {"environments": {"ml-prod"}}

deny contains violation("no_networks", rc, "networks are made by the platform team") if {
	applies("no_networks")
	some rc in changes("hypercompute_network")
}
`
	custom := write("custom/network.rego", noNetworks)
	incomplete := write("incomplete/network.rego", "package hypercompute.policy\n\nenvironments := {\"ml-prod\"}\n\ndeny := set()\n")

	tests := []struct {
		name   string
		args   []string
		stdin  string
		code   int
		stdout string // exact
		stderr string // contained
	}{
		{
			name: "violations",
			args: []string{"check", "-env", "ml-prod", "-plan", planOf("deletion_protection", "fail")},
			code: 1,
			stdout: "DENY [deletion_protection] hypercompute_bucket.checkpoints: deletion_protection = false: in ml-prod storage and clusters must refuse deletion; set deletion_protection = true\n" +
				"DENY [deletion_protection] module.cluster.hypercompute_training_cluster.this: deletion_protection is not known until apply, so the ml-prod policy cannot show it complies; set it from a value known at plan time\n" +
				"DENY [deletion_protection] module.cluster.module.lustre[0].hypercompute_lustre.this: deletion_protection = false: in ml-prod storage and clusters must refuse deletion; set deletion_protection = true\n" +
				"FAIL ml-prod: 3 violations; 6 rules checked 5 resources created or updated\n",
		},
		{
			name:   "the same plan where deletion protection is not enforced",
			args:   []string{"check", "-env", "ml-staging", "-plan", planOf("deletion_protection", "fail")},
			stdout: "PASS ml-staging: no violations; 3 rules checked 5 resources created or updated\n",
		},
		{
			name:   "no violations, plan on standard input",
			args:   []string{"check", "-env", "ml-prod", "-plan", "-"},
			stdin:  string(passJSON),
			stdout: "PASS ml-prod: no violations; 6 rules checked 4 resources created or updated\n",
		},
		{
			name:   "policies from a directory",
			args:   []string{"check", "-env", "ml-prod", "-plan", planOf("shielded_vm", "fail"), "-policies", filepath.Dir(custom)},
			code:   1,
			stdout: "DENY [no_networks] module.cluster.module.network.hypercompute_network.this: networks are made by the platform team\nFAIL ml-prod: 1 violation; 1 rule checked 4 resources created or updated\n",
		},
		{name: "unknown environment", args: []string{"check", "-env", "prod", "-plan", planOf("shielded_vm", "pass")}, code: 2,
			stderr: `unknown environment "prod": the policies know ml-dev, ml-prod, ml-staging`},
		{name: "policies without what lib.rego defines", args: []string{"check", "-env", "ml-prod", "-plan", planOf("shielded_vm", "pass"), "-policies", filepath.Dir(incomplete)}, code: 2,
			stderr: "the policies do not define data.hypercompute.policy.judged"},
		{name: "environment the policies do not know", args: []string{"check", "-env", "ml-dev", "-plan", planOf("shielded_vm", "pass"), "-policies", filepath.Dir(incomplete)}, code: 2,
			stderr: `unknown environment "ml-dev": the policies know ml-prod`},
		{name: "no -env", args: []string{"check", "-plan", planOf("shielded_vm", "pass")}, code: 2, stderr: "-env is required"},
		{name: "no -plan", args: []string{"check", "-env", "ml-prod"}, code: 2, stderr: "-plan is required"},
		{name: "unreadable plan", args: []string{"check", "-env", "ml-prod", "-plan", filepath.Join(dir, "missing.json")}, code: 2,
			stderr: "reading the plan: open " + filepath.Join(dir, "missing.json") + ": no such file or directory"},
		{name: "invalid JSON", args: []string{"check", "-env", "ml-prod", "-plan", write("bad.json", `{"format_version": `)}, code: 2,
			stderr: "bad.json: not valid JSON"},
		{name: "a saved plan file", args: []string{"check", "-env", "ml-prod", "-plan", write("tfplan", "PK\x03\x04binary")}, code: 2,
			stderr: "this is a saved plan file, not its JSON: give the output of `terraform show -json PLANFILE`"},
		{name: "a state", args: []string{"check", "-env", "ml-prod", "-plan", write("state.json", `{"format_version": "1.0", "values": {}}`)}, code: 2,
			stderr: "this is the JSON of a state, not of a plan"},
		{name: "a failed plan", args: []string{"check", "-env", "ml-prod", "-plan", write("errored.json", `{"format_version": "1.2", "planned_values": {}, "errored": true}`)}, code: 2,
			stderr: "the plan is incomplete"},
		{name: "policies that do not compile", args: []string{"check", "-env", "ml-prod", "-plan", planOf("shielded_vm", "pass"), "-policies", filepath.Dir(write("broken/x.rego", "package hypercompute.policy\n\ndeny contains x if {\n"))}, code: 2,
			stderr: "policy compile error: 1 error occurred: " + filepath.Join(dir, "broken", "x.rego") + ":"},
		{name: "no policies there", args: []string{"check", "-env", "ml-prod", "-plan", planOf("shielded_vm", "pass"), "-policies", filepath.Join(dir, "none")}, code: 2,
			stderr: "policies directory: stat " + filepath.Join(dir, "none") + ": no such file or directory"},
		{name: "unknown command", args: []string{"verify"}, code: 2, stderr: `unknown command "verify"`},
		{name: "extra arguments", args: []string{"check", "-env", "ml-prod", "-plan", "p.json", "more"}, code: 2, stderr: "unexpected arguments: more"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tc.args, strings.NewReader(tc.stdin), &stdout, &stderr)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stdout:\n%s\nstderr:\n%s", code, tc.code, stdout.String(), stderr.String())
			}
			if tc.code != 2 && stdout.String() != tc.stdout {
				t.Errorf("stdout:\n%s\nwant:\n%s", stdout.String(), tc.stdout)
			}
			if tc.code == 2 && stdout.Len() > 0 {
				t.Errorf("bad input printed to stdout: %s", stdout.String())
			}
			if !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("stderr:\n%s\nwant it to contain %q", stderr.String(), tc.stderr)
			}
		})
	}
}

// `data` prints what the rules read under data.hypercompute.context, for the opa CLI.
func TestData(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"data", "-env", "ml-prod"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, want := range []string{`"environment": "ml-prod"`, `"a3-megagpu-8g"`, `"SlurmctldHost": "it is set from the cluster's name and controller"`, `"MaxTime": "set the partition's max_time instead"`} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("data lacks %s:\n%s", want, stdout.String())
		}
	}
}

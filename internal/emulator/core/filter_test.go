package core

import (
	"encoding/json"
	"testing"
)

func TestFilter(t *testing.T) {
	res := json.RawMessage(`{"name":"node-12","status":"RUNNING","labels":{"env":"prod","role":"compute"},"cpus":8,
		"networkInterfaces":[{"network":"https://www.googleapis.com/compute/v1/projects/p/global/networks/a"},{"network":"https://www.googleapis.com/compute/v1/projects/p/global/networks/b"}],
		"operationType":"insert","operationGroupId":"g-1","preemptible":false}`)
	cases := map[string]bool{
		"":                    true,
		"name = node-12":      true,
		"name=node-12":        true,
		"name = node-1":       false,
		"name != node-1":      true,
		"name = node-*":       true,
		"name eq node-[0-9]+": true,
		"name eq node":        false,
		"name ne 'node-1.*'":  false,
		"labels.env = prod":   true,
		"labels.env = dev":    false,
		"labels.nothing != x": true,
		"labels.role:*":       true,
		"labels.nothing:*":    false,
		"(labels.env = prod) AND (status = RUNNING)":        true,
		"(labels.env = prod) AND (status = STOPPED)":        false,
		"(labels.env = dev) OR (status = RUNNING)":          true,
		"(operationType=insert) AND (operationGroupId=g-1)": true,
		"(labels.env = prod) (cpus > 4)":                    true,
		"cpus >= 9":                                         false,
		"NOT (name = node-12)":                              false,
		"preemptible = false":                               true,
		"networkInterfaces.network = https://www.googleapis.com/compute/v1/projects/p/global/networks/b":   true,
		`networkInterfaces.network = "https://www.googleapis.com/compute/v1/projects/p/global/networks/c"`: false,
		`name = "node-12"`: true,
		// gcloud's server-side form of --filter="name:node": a quoted RE2 regex whose \b escapes must survive.
		`name eq ".*\bnode\b.*"`:                  true,
		`(name eq ".*\bnode\-12\b.*")`:            true,
		`name eq ".*\bode\b.*"`:                   false,
		`name ne ".*\bnode\b.*"`:                  false,
		`name eq "node-1"`:                        false, // full match, not a substring
		`name eq 'node-1\d'`:                      true,
		`status eq "(?i)running"`:                 true,
		`name = "a\"b"`:                           false, // an escaped quote stays inside the value
		`labels.env eq "prod" labels.role eq c.*`: true,
	}
	for expr, want := range cases {
		f, err := ParseFilter(expr)
		if err != nil {
			t.Errorf("ParseFilter(%q): %v", expr, err)
			continue
		}
		if got := f.Match(res); got != want {
			t.Errorf("%q matched = %v, want %v", expr, got, want)
		}
	}
	for _, bad := range []string{"name =", "(name = x", "name ~ x", "name eq '('", "= x"} {
		if _, err := ParseFilter(bad); err == nil {
			t.Errorf("ParseFilter(%q) accepted", bad)
		}
	}
}

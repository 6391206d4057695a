package policy_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/format"
)

// The policies are laid out as `opa fmt` writes them, as Go files are by gofmt.
func TestPoliciesFormatted(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "policies", "*.rego"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no policies found: %v", err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out, err := format.Source(f, src)
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != string(src) {
			t.Errorf("%s is not as opa fmt writes it:\n%s", f, out)
		}
	}
}

// policies/README.md's table of rules and environments is the one the rules enforce.
func TestReadmeTable(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "policies", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	envs := []string{"ml-dev", "ml-staging", "ml-prod"} // the table's columns after the description
	documented := map[string][]string{}
	rows := 0
	for _, line := range strings.Split(string(readme), "\n") {
		cells := strings.Split(line, "|")
		if !strings.HasPrefix(line, "| `") || len(cells) != 7 {
			continue
		}
		rows++
		rule := strings.Trim(strings.TrimSpace(cells[1]), "`")
		for i, env := range envs {
			if strings.TrimSpace(cells[3+i]) == "✓" {
				documented[env] = append(documented[env], rule)
			}
		}
	}
	if rows != len(enforcedIn["ml-prod"]) {
		t.Errorf("the README's table has %d rules, the policies %d", rows, len(enforcedIn["ml-prod"]))
	}
	for _, env := range envs {
		slices.Sort(documented[env])
		if !slices.Equal(documented[env], enforcedIn[env]) {
			t.Errorf("README: %s enforces %v, the policies %v", env, documented[env], enforcedIn[env])
		}
	}
}

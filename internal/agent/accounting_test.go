package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An external database's password file must be the site's root-only file; anything else is refused
// with the reason, and its content is never in the error.
func TestReadPasswordFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if pw, err := readPasswordFile(write("ok", "  hunter2-secret\n", 0o600)); err != nil || pw != "hunter2-secret" {
		t.Errorf("root-only file: %q, %v", pw, err)
	}
	for name, c := range map[string]struct {
		path, want string
	}{
		"readable by others": {write("wide", "hunter2-secret\n", 0o644), "readable by others (mode -rw-r--r--); make it 0600"},
		"empty":              {write("empty", "\n", 0o600), "is empty"},
		"missing":            {filepath.Join(dir, "none"), "no such file"},
	} {
		_, err := readPasswordFile(c.path)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}

// slurmctld reads its accounting and priority plugins only at start: a change to them restarts it,
// any other change is a reconfigure.
func TestAccountingRestart(t *testing.T) {
	base := "ClusterName=c\nMaxJobCount=100\n"
	acct := base + "AccountingStorageType=accounting_storage/slurmdbd\nAccountingStorageHost=c-controller\nJobAcctGatherType=jobacct_gather/linux\n"
	for name, c := range map[string]struct {
		a, b string
		want bool
	}{
		"accounting turned on":      {base, acct, true},
		"accounting turned off":     {acct, base, true},
		"fair share turned on":      {acct, acct + "PriorityType=priority/multifactor\n", true},
		"another setting changed":   {acct, strings.Replace(acct, "MaxJobCount=100", "MaxJobCount=200", 1), false},
		"a weight changed (reconf)": {acct + "PriorityWeightAge=1000\n", acct + "PriorityWeightAge=10\n", false},
	} {
		if got := accountingRestart([]byte(c.a), []byte(c.b)); got != c.want {
			t.Errorf("%s: restart %v, want %v", name, got, c.want)
		}
	}
}

package clusterconfig

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// Prolog and epilog as ordered lists (Cluster Director's prologBashScripts/epilogBashScripts). Slurm runs
// every file its Prolog glob matches, in an order its documentation does not promise, so the list is not a
// set of files: it is one runner, the cluster's 50- script, which holds the scripts and runs them one after
// the other, each with its own interpreter line, stopping at the first that fails with its exit code (which
// makes Slurm drain the node and hold the job, as for any failing prolog).

// MaxScripts bounds a prolog or epilog list.
const MaxScripts = 16

// ScriptRunner is the runner of an ordered list of scripts (kind is "prolog" or "epilog").
func ScriptRunner(kind string, scripts []string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/bash\n# hypercompute: the cluster's %s scripts, run in the order slurm.%s_scripts lists them.\n", kind, kind)
	b.WriteString("set -u\ndir=$(mktemp -d /run/hypercompute-" + kind + ".XXXXXX) || exit 1\ntrap 'rm -rf \"$dir\"' EXIT\n")
	b.WriteString("run() {\n  local n=$1 f=\"$dir/$1\"\n  cat >\"$f\" && chmod 0700 \"$f\" || return 1\n  \"$f\"\n  local rc=$?\n")
	fmt.Fprintf(&b, "  if [ $rc -ne 0 ]; then\n    logger -t hypercompute-%s \"slurm.%s_scripts[$n] failed with exit code $rc (job ${SLURM_JOB_ID:-?})\" 2>/dev/null\n", kind, kind)
	fmt.Fprintf(&b, "    echo \"hypercompute: slurm.%s_scripts[$n] failed with exit code $rc\" >&2\n    exit $rc\n  fi\n}\n", kind)
	for i, s := range scripts {
		delim := heredocDelimiter(s)
		if !strings.HasSuffix(s, "\n") {
			s += "\n"
		}
		fmt.Fprintf(&b, "run %d <<'%s'\n%s%s\n", i, delim, s, delim)
	}
	return []byte(b.String())
}

// heredocDelimiter is a quoted here-document end marker no line of s equals.
func heredocDelimiter(s string) string {
	sum := sha256.Sum256([]byte(s))
	d := "HYPERCOMPUTE_SCRIPT_" + strings.ToUpper(hex.EncodeToString(sum[:8]))
	for strings.Contains("\n"+s+"\n", "\n"+d+"\n") {
		d += "_"
	}
	return d
}

func validateScriptLists(s SlurmSettings) error {
	for _, l := range []struct {
		name, single string
		list         []string
	}{{"prolog", s.Prolog, s.PrologScripts}, {"epilog", s.Epilog, s.EpilogScripts}} {
		if len(l.list) == 0 {
			continue
		}
		if l.single != "" {
			return fmt.Errorf("%s_scripts: set either %s (one script) or %s_scripts (an ordered list), not both", l.name, l.name, l.name)
		}
		if len(l.list) > MaxScripts {
			return fmt.Errorf("%s_scripts: %d scripts, at most %d", l.name, len(l.list), MaxScripts)
		}
		for i, body := range l.list {
			if !strings.HasPrefix(body, "#!") {
				return fmt.Errorf("%s_scripts[%d]: the script must start with an interpreter line such as #!/bin/bash", l.name, i)
			}
		}
	}
	return nil
}

// MaxStartupScript bounds a startup script: it travels in the VM's metadata next to the node's own payload.
const MaxStartupScript = 64 << 10

// ValidateStartupScript checks a node set's or the login VMs' startup script ("" is none).
func ValidateStartupScript(s string) error {
	if s == "" {
		return nil
	}
	if !strings.HasPrefix(s, "#!") {
		return fmt.Errorf("the script must start with an interpreter line such as #!/bin/bash")
	}
	if len(s) > MaxStartupScript {
		return fmt.Errorf("the script is %d bytes, at most %d", len(s), MaxStartupScript)
	}
	return nil
}

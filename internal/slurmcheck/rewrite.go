package slurmcheck

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// sandbox is where one validation keeps its files and which ports it uses.
type sandbox struct {
	dir           string
	confPath      string
	mungeSocket   string
	jwtKey        string
	stub          string
	slurmctldPort int
	slurmdPort    int
	hostname      string
}

func (s sandbox) path(parts ...string) string {
	return filepath.Join(append([]string{s.dir}, parts...)...)
}

// Programs slurmctld itself checks or runs; slurmd's programs (Prolog,
// HealthCheckProgram, ...) are not its business.
var controllerPrograms = map[string]bool{
	"resumeprogram": true, "suspendprogram": true, "resumefailprogram": true,
	"prologslurmctld": true, "epilogslurmctld": true, "rebootprogram": true,
}

// rewriteConf moves everything machine-specific into the sandbox: the
// controller becomes this host on 127.0.0.1, ports are free ones, state,
// spool, logs and pid files live in the sandbox, slurmctld runs as root
// with the sandbox's munged and JWT key. Lines are replaced in place so
// slurmctld's "line N" messages match the caller's file. Other lines,
// including unknown keys, pass through for slurmctld to judge. Programs
// slurmctld runs that do not exist here are replaced by a stub unless
// strict, and reported in stubbed.
func rewriteConf(conf []byte, sb sandbox, strict bool) (out []byte, stubbed []string) {
	set := map[string]string{
		"slurmctldhost":     fmt.Sprintf("SlurmctldHost=%s(127.0.0.1)", sb.hostname),
		"slurmctldport":     "SlurmctldPort=" + strconv.Itoa(sb.slurmctldPort),
		"slurmdport":        "SlurmdPort=" + strconv.Itoa(sb.slurmdPort),
		"slurmuser":         "SlurmUser=root",
		"slurmduser":        "SlurmdUser=root",
		"authtype":          "AuthType=auth/munge",
		"authinfo":          "AuthInfo=socket=" + sb.mungeSocket,
		"credtype":          "CredType=cred/munge",
		"statesavelocation": "StateSaveLocation=" + sb.path("state"),
		"slurmdspooldir":    "SlurmdSpoolDir=" + sb.path("spool", "%n"),
		"slurmctldpidfile":  "SlurmctldPidFile=" + sb.path("run", "slurmctld.pid"),
		"slurmdpidfile":     "SlurmdPidFile=" + sb.path("run", "slurmd-%n.pid"),
		"slurmctldlogfile":  "SlurmctldLogFile=" + sb.path("log", "slurmctld.log"),
		"slurmdlogfile":     "SlurmdLogFile=" + sb.path("log", "slurmd-%n.log"),
		"slurmschedlogfile": "SlurmSchedLogFile=" + sb.path("log", "sched.log"),
		"authaltparameters": "AuthAltParameters=jwt_key=" + sb.jwtKey,
		// The sandbox must not talk to the cluster's slurmdbd: it would register its own ports
		// there under the cluster's name.
		"accountingstoragetype": "AccountingStorageType=accounting_storage/none",
	}
	// Keys whose presence is replaced by a controller of our own.
	dropped := map[string]bool{"controlmachine": true, "controladdr": true, "backupcontroller": true, "backupaddr": true}
	seen := map[string]bool{}
	jwt := false
	lines := strings.Split(string(conf), "\n")
	for i, line := range lines {
		key, value, ok := globalSetting(line)
		if !ok {
			continue
		}
		switch {
		case dropped[key]:
			lines[i] = "# (validator) " + strings.TrimSpace(line)
		case set[key] != "":
			if seen[key] {
				// A second SlurmctldHost would be a backup controller.
				lines[i] = "# (validator) " + strings.TrimSpace(line)
				continue
			}
			seen[key] = true
			lines[i] = set[key]
		case controllerPrograms[key] && !strict && !executable(value):
			stubbed = append(stubbed, fmt.Sprintf("%s=%s", strings.SplitN(strings.TrimSpace(line), "=", 2)[0], value))
			lines[i] = strings.SplitN(strings.TrimSpace(line), "=", 2)[0] + "=" + sb.stub
		}
		if key == "authalttypes" && strings.Contains(value, "jwt") {
			jwt = true
		}
	}
	out = []byte(strings.Join(lines, "\n"))
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	var tail []string
	for _, k := range sortedKeys(set) {
		// A missing SlurmctldHost stays missing: slurmctld must refuse it.
		if seen[k] || k == "slurmctldhost" || (k == "authaltparameters" && !jwt) {
			continue
		}
		tail = append(tail, set[k])
	}
	if len(tail) > 0 {
		out = append(out, []byte("# (validator) sandbox settings\n"+strings.Join(tail, "\n")+"\n")...)
	}
	return out, stubbed
}

// globalSetting parses a line holding one global "Key=Value" setting and
// returns the lowercased key and the value; records (NodeName=...,
// PartitionName=...) and comments are not global settings.
func globalSetting(line string) (key, value string, ok bool) {
	line = stripComment(line)
	fields := fields(line)
	if len(fields) == 0 {
		return "", "", false
	}
	k, v, found := strings.Cut(fields[0], "=")
	if !found {
		return "", "", false
	}
	k = strings.ToLower(k)
	switch k {
	case "nodename", "partitionname", "nodeset", "downnodes", "frontendname":
		return "", "", false
	}
	return k, strings.Trim(v, `"`), true
}

// stripComment drops what follows an unescaped "#".
func stripComment(line string) string {
	for i := 0; i < len(line); i++ {
		if line[i] == '#' && (i == 0 || line[i-1] != '\\') {
			return line[:i]
		}
	}
	return line
}

// fields splits a slurm.conf line on whitespace, keeping quoted values whole.
func fields(line string) []string {
	var out []string
	var cur strings.Builder
	quoted := false
	for _, r := range line {
		switch {
		case r == '"':
			quoted = !quoted
			cur.WriteRune(r)
		case (r == ' ' || r == '\t') && !quoted:
			if cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// record is a NodeName or PartitionName line as declared.
type record struct {
	kind   string // "nodename" or "partitionname"
	name   string
	fields map[string]string // lowercased keys
}

// declaredRecords returns the node and partition lines of a slurm.conf.
func declaredRecords(conf []byte) []record {
	var out []record
	for _, line := range strings.Split(string(conf), "\n") {
		f := fields(stripComment(line))
		if len(f) == 0 {
			continue
		}
		k, v, _ := strings.Cut(f[0], "=")
		kind := strings.ToLower(k)
		if (kind != "nodename" && kind != "partitionname") || strings.EqualFold(v, "DEFAULT") {
			continue
		}
		r := record{kind: kind, name: v, fields: map[string]string{}}
		for _, kv := range f[1:] {
			k, v, _ := strings.Cut(kv, "=")
			r.fields[strings.ToLower(k)] = strings.Trim(v, `"`)
		}
		out = append(out, r)
	}
	return out
}

func executable(p string) bool {
	if !strings.HasPrefix(p, "/") {
		return false
	}
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}

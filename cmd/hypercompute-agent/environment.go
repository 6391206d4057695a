package main

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// environmentKeys are the variables that locate the metadata server and the
// local cloud's APIs. Programs slurmctld runs (the power-saving wrappers)
// start with a bare environment, so the agent reads them from
// /etc/environment when they are unset, as a login shell would.
var environmentKeys = map[string]bool{"GCE_METADATA_HOST": true, "GCE_METADATA_IP": true, "HYPERCOMPUTE_EMULATOR_HOST": true}

// loadEnvironmentFile sets the environmentKeys a pam_env-style file
// (KEY=value, optionally quoted) defines and the process lacks.
func loadEnvironmentFile(path string) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		line = strings.TrimPrefix(line, "export ")
		k, v, ok := strings.Cut(line, "=")
		if !ok || !environmentKeys[k] || os.Getenv(k) != "" {
			continue
		}
		if uq, err := strconv.Unquote(v); err == nil {
			v = uq
		} else {
			v = strings.Trim(v, `'`)
		}
		os.Setenv(k, v)
	}
}

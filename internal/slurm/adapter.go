package slurm

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// adapter maps the client's types to one REST API version's JSON. Each
// version is one file that calls register from init. Paths are the same in
// every supported version: /slurm/<version>/{ping,job/submit,job/ID,jobs,
// nodes,node/NAME,partitions}.
type adapter interface {
	version() string
	// submitBody is the JSON body of POST job/submit.
	submitBody(p preparedSpec) (any, error)
	// nodeUpdateBody is the JSON body of POST node/NAME, or an
	// *UnsupportedError where the version has no node updates.
	nodeUpdateBody(state, reason, user string) (any, error)
	decodeJobs(body []byte) ([]Job, error)
	decodeNodes(body []byte) ([]Node, error)
	decodePartitions(body []byte) ([]Partition, error)
	decodePing(body []byte) ([]Controller, error)
}

var adapters = map[string]adapter{}

func register(a adapter) {
	if _, ok := parseVersion(a.version()); !ok {
		panic("slurm: adapter with bad version " + a.version())
	}
	adapters[a.version()] = a
}

// SupportedVersions lists the REST API versions the client speaks, newest first.
func SupportedVersions() []string {
	out := make([]string, 0, len(adapters))
	for v := range adapters {
		out = append(out, v)
	}
	sortVersionsDesc(out)
	return out
}

// parseVersion reads "v0.0.38" (or "0.0.38") into comparable numbers.
func parseVersion(v string) ([3]int, bool) {
	var out [3]int
	parts := strings.Split(strings.TrimPrefix(v, "v"), ".")
	if len(parts) != 3 {
		return out, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return out, false
		}
		out[i] = n
	}
	return out, true
}

func sortVersionsDesc(vs []string) {
	slices.SortFunc(vs, func(a, b string) int {
		pa, _ := parseVersion(a)
		pb, _ := parseVersion(b)
		for i := range pa {
			if pa[i] != pb[i] {
				return pb[i] - pa[i]
			}
		}
		return 0
	})
}

// pickVersion chooses the newest offered version with an adapter.
func pickVersion(offered []string) (adapter, error) {
	vs := slices.Clone(offered)
	sortVersionsDesc(vs)
	for _, v := range vs {
		if a, ok := adapters[v]; ok {
			return a, nil
		}
	}
	return nil, fmt.Errorf("slurm: server offers REST API versions %v, client supports %v",
		offered, SupportedVersions())
}

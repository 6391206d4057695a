package clusterconfig

import (
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"
)

// Applied is everything the controller's agent writes for one configuration: the cluster with
// its defaults and health hook, the files, and the health plan they were resolved into. The agent
// applies it and reports HashFiles(Files) as its config-hash; the provider computes the same value
// to know when its change was applied. One computation for both: a provider that hashed less than
// the agent (the health policies' files) waited for a hash that never came.
type Applied struct {
	Cluster Cluster
	Files   map[string][]byte
	// Health is the policies resolved over the partitions; zero without policies.
	Health HealthPlan
}

// Hash is the config-hash the controller reports once it runs this configuration.
func (a Applied) Hash() string { return HashFiles(a.Files) }

// Render resolves a configuration as the controller applies it: the cluster with defaults, its
// partitions and its health policies (when they ask for node checks, slurm.conf's
// HealthCheckProgram hook, the checks' scripts and the resolved plan are part of the files).
func Render(c Cluster, parts []Partition, policies []HealthPolicy) (Applied, error) {
	a, err := render(c, parts, policies)
	if err != nil || c.Monitoring == nil {
		return a, err
	}
	b, err := json.MarshalIndent(c.Monitoring, "", "  ")
	if err != nil {
		return Applied{}, err
	}
	a.Files[path.Join(a.Cluster.Layout.ConfDir, SharedMonitoring)] = append(b, '\n')
	return a, nil
}

func render(c Cluster, parts []Partition, policies []HealthPolicy) (Applied, error) {
	c = c.WithDefaults()
	files, err := RenderFiles(c, parts)
	if err != nil {
		return Applied{}, err
	}
	a := Applied{Cluster: c, Files: files}
	if len(policies) == 0 {
		return a, nil
	}
	l := c.Layout
	a.Health = ResolveHealth(policies, parts)
	if a.Cluster.Health = a.Health.HealthHook(l); a.Cluster.Health == nil {
		return a, nil
	}
	if a.Files, err = RenderFiles(a.Cluster, parts); err != nil {
		return Applied{}, err
	}
	for p, b := range a.Health.HealthScripts(l) {
		a.Files[p] = b
	}
	b, err := json.MarshalIndent(a.Health, "", "  ")
	if err != nil {
		return Applied{}, err
	}
	a.Files[path.Join(l.ConfDir, SharedHealthPlan)] = append(b, '\n')
	return a, nil
}

// AppliedHash is Render's hash: what the controller reports once it applied the configuration the
// controller's metadata md holds (the cluster config c, every partition and health policy key).
// Keys that do not decode are left out, as the agent refuses them and keeps what it runs.
func AppliedHash(c Cluster, md map[string]string) (string, error) {
	a, err := Render(c, PartitionsOf(c.Name, md), HealthPoliciesOf(md))
	if err != nil {
		return "", err
	}
	return a.Hash(), nil
}

// PartitionsOf decodes the partition keys of the controller's metadata, in key order.
func PartitionsOf(cluster string, md map[string]string) []Partition {
	var out []Partition
	for _, k := range sortedPrefixed(md, PartitionKeyPrefix) {
		if p, err := DecodePartition(cluster, []byte(md[k])); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// HealthPoliciesOf decodes the health policy keys of the controller's metadata, in key order.
func HealthPoliciesOf(md map[string]string) []HealthPolicy {
	var out []HealthPolicy
	for _, k := range sortedPrefixed(md, HealthPolicyKeyPrefix) {
		if p, err := DecodeHealthPolicy([]byte(md[k])); err == nil && HealthPolicyKey(p.Name) == k {
			out = append(out, p)
		}
	}
	return out
}

// DecodeHealthPolicies decodes every health policy key of the controller's metadata, failing on
// the first that does not decode or sits under another policy's key (the agent's view: it applies
// nothing it cannot read whole).
func DecodeHealthPolicies(md map[string]string) ([]HealthPolicy, error) {
	var out []HealthPolicy
	for _, k := range sortedPrefixed(md, HealthPolicyKeyPrefix) {
		p, err := DecodeHealthPolicy([]byte(md[k]))
		if err != nil {
			return nil, fmt.Errorf("metadata key %s: %w", k, err)
		}
		if want := HealthPolicyKey(p.Name); want != k {
			return nil, fmt.Errorf("metadata key %s holds health policy %q, which belongs under %s", k, p.Name, want)
		}
		out = append(out, p)
	}
	return out, nil
}

func sortedPrefixed(md map[string]string, prefix string) []string {
	var keys []string
	for k := range md {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

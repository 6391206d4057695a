package policy

import (
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// Data is the data document the rules read under data.hypercompute.context: the environment under
// check and the facts the provider keeps in its own tables, so a rule never restates them.
// `hypercompute-policy data` prints it for running the policies with the opa CLI.
func Data(env string) map[string]any {
	return map[string]any{"hypercompute": map[string]any{"context": map[string]any{
		"environment":       env,
		"gpu_machine_types": anySlice(catalog.GPUMachineTypeNames()),
		"managed_slurm_keys": map[string]any{
			"cluster":   anyMap(cc.ManagedSlurmKeys()),
			"partition": anyMap(cc.ManagedPartitionKeys()),
		},
	}}}
}

func newStore(data map[string]any) storage.Store { return inmem.NewFromObject(data) }

// anySlice and anyMap give OPA's store the JSON-shaped values it takes.
func anySlice(in []string) []any {
	out := make([]any, len(in))
	for i, s := range in {
		out[i] = s
	}
	return out
}

func anyMap(in map[string]string) map[string]any {
	out := make(map[string]any, len(in))
	for k, v := range in {
		out[k] = v
	}
	return out
}

package policy

import (
	"bytes"
	"fmt"

	"github.com/open-policy-agent/opa/v1/util"
)

// decodePlan reads the JSON of a plan (`terraform show -json PLANFILE`) and refuses anything
// else with what to give instead: a saved plan file, a state, invalid JSON.
func decodePlan(data []byte) (map[string]any, error) {
	const want = "give the output of `terraform show -json PLANFILE`"
	if bytes.HasPrefix(data, []byte("PK\x03\x04")) {
		return nil, fmt.Errorf("this is a saved plan file, not its JSON: %s", want)
	}
	var doc any
	if err := util.UnmarshalJSON(data, &doc); err != nil {
		return nil, fmt.Errorf("not valid JSON (%v): %s", err, want)
	}
	plan, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("not the JSON of a Terraform plan (a JSON object is expected): %s", want)
	}
	if _, ok := plan["format_version"].(string); !ok {
		return nil, fmt.Errorf("not the JSON of a Terraform plan (no format_version): %s", want)
	}
	if _, ok := plan["planned_values"]; !ok {
		if _, ok := plan["values"]; ok {
			return nil, fmt.Errorf("this is the JSON of a state, not of a plan: %s", want)
		}
		return nil, fmt.Errorf("not the JSON of a Terraform plan (no planned_values): %s", want)
	}
	if errored, _ := plan["errored"].(bool); errored {
		return nil, fmt.Errorf("the plan is incomplete (errored: terraform plan failed); fix the plan first")
	}
	changes, ok := plan["resource_changes"]
	if !ok {
		return plan, nil // a plan of an empty configuration
	}
	list, ok := changes.([]any)
	if !ok {
		return nil, fmt.Errorf("resource_changes is not a list: %s", want)
	}
	for i, c := range list {
		rc, ok := c.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("resource_changes[%d] is not an object", i)
		}
		if _, ok := rc["address"].(string); !ok {
			return nil, fmt.Errorf("resource_changes[%d] has no address", i)
		}
		change, _ := rc["change"].(map[string]any)
		if _, ok := change["actions"].([]any); !ok {
			return nil, fmt.Errorf("resource_changes[%d] (%v) has no change.actions", i, rc["address"])
		}
	}
	return plan, nil
}

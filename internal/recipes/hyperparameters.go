package recipes

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// hyperSpec says what values a hyperparameter takes.
type hyperSpec struct {
	integer bool
	min     float64
	// exclusive: the value must be greater than min, not equal to it.
	exclusive bool
}

// hyperSpecs covers every hyperparameter any recipe accepts; a recipe's
// Hyperparameters map says which of them it accepts.
var hyperSpecs = map[string]hyperSpec{
	"learning_rate":       {min: 0, exclusive: true},
	"min_learning_rate":   {min: 0},
	"warmup_steps":        {integer: true, min: 0},
	"weight_decay":        {min: 0},
	"grad_clip":           {min: 0},
	"micro_batch":         {integer: true, min: 1},
	"global_batch":        {integer: true, min: 1},
	"seq_length":          {integer: true, min: 8},
	"seed":                {integer: true, min: 0},
	"log_every":           {integer: true, min: 1},
	"save_interval_steps": {integer: true, min: 1},
	// GRPO (rl): prompts per step and rollouts per prompt.
	"num_prompts_per_step":       {integer: true, min: 1},
	"num_generations_per_prompt": {integer: true, min: 2},
}

// ResolveHyperparameters returns the recipe's hyperparameters with the
// overrides applied, or an error naming the bad key and the valid ones.
func ResolveHyperparameters(r Recipe, overrides map[string]string) (map[string]string, error) {
	out := make(map[string]string, len(r.Hyperparameters))
	for k, v := range r.Hyperparameters {
		out[k] = v
	}
	keys := make([]string, 0, len(overrides))
	for k := range overrides {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, ok := r.Hyperparameters[k]; !ok {
			return nil, fmt.Errorf("hyperparameter %q is not one recipe %s takes; it takes: %s", k, r.Key(), strings.Join(sortedKeys(r.Hyperparameters), ", "))
		}
		v := strings.TrimSpace(overrides[k])
		if err := checkHyperparameter(k, v); err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, nil
}

func checkHyperparameter(k, v string) error {
	spec, ok := hyperSpecs[k]
	if !ok {
		return fmt.Errorf("hyperparameter %q has no value rule", k)
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("hyperparameter %s = %q is not a number", k, v)
	}
	if spec.integer {
		if _, err := strconv.Atoi(v); err != nil {
			return fmt.Errorf("hyperparameter %s = %q must be a whole number", k, v)
		}
	}
	if f < spec.min || (spec.exclusive && f == spec.min) {
		op := "at least"
		if spec.exclusive {
			op = "greater than"
		}
		return fmt.Errorf("hyperparameter %s = %s must be %s %g", k, v, op, spec.min)
	}
	return nil
}

// numeric converts resolved hyperparameters to JSON numbers for the trainer.
func numeric(hp map[string]string) map[string]any {
	out := make(map[string]any, len(hp))
	for k, v := range hp {
		if hyperSpecs[k].integer {
			n, _ := strconv.Atoi(v)
			out[k] = n
		} else {
			f, _ := strconv.ParseFloat(v, 64)
			out[k] = f
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }

func atoiMust(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic("recipes: " + err.Error())
	}
	return n
}

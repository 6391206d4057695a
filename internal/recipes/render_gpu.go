package recipes

import "fmt"

func renderGPU(j Job, r Recipe, hp map[string]string) (Script, error) {
	return Script{}, fmt.Errorf("recipes: GPU rendering of %s is not written yet", r.Key())
}

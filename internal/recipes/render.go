package recipes

import "fmt"

// Render turns a resolved Job into its batch script.
// TODO(recipes): being written; returns an error until then.
func Render(j Job) (Script, error) {
	return Script{}, fmt.Errorf("recipes: rendering of %s/%s/%s is not implemented yet", j.Model, j.Size, j.Mode)
}

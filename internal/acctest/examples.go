package acctest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// Example is the documentation's example of a resource type (examples/resources/<type>/resource.tf
// of the repository the test runs in).
func Example(t testing.TB, resourceType string) string {
	t.Helper()
	return example(t, "resources", resourceType, "resource.tf")
}

// DataSourceExample is the documentation's example of a data source type
// (examples/data-sources/<type>/data-source.tf).
func DataSourceExample(t testing.TB, dataSourceType string) string {
	t.Helper()
	return example(t, "data-sources", dataSourceType, "data-source.tf")
}

func example(t testing.TB, kind, typeName, file string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory: cannot find examples/")
		}
		dir = parent
	}
	b, err := os.ReadFile(filepath.Join(dir, "examples", kind, typeName, file))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// PlanExample checks that the documentation's example of a resource type, alone, passes every
// plan-time check: it plans changes and no error, against a local cloud of its own.
func PlanExample(t *testing.T, factories map[string]func() (tfprotov6.ProviderServer, error), resourceType string) {
	t.Helper()
	env := New(t)
	env.PlanConfig(t, factories, Example(t, resourceType))
}

// PlanConfig checks that config (an example with what it refers to) passes every plan-time
// check against this local cloud: it plans changes and no error.
func (e *Env) PlanConfig(t *testing.T, factories map[string]func() (tfprotov6.ProviderServer, error), config string) {
	t.Helper()
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{{
			Config:             e.Config(config),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		}},
	})
}

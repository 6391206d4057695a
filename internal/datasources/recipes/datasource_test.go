package recipes_test

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	rc "github.com/hypercompute/terraform-provider-hypercompute/internal/recipes"
)

const addr = "data.hypercompute_recipes.r"

func config(env *acctest.Env, body string) string {
	return env.Config(fmt.Sprintf("data \"hypercompute_recipes\" \"r\" {\n%s}\n", body))
}

func noCalls(env *acctest.Env) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if c := env.Calls(); c.Total != 0 {
			return fmt.Errorf("the data source made %d API calls (%v); it must make none", c.Total, c.Methods)
		}
		return nil
	}
}

// The data source lists the catalog as internal/recipes holds it, filtered.
func TestAccRecipes_list(t *testing.T) {
	env := acctest.New(t)
	mega, err := rc.Lookup(rc.ModelLlama31, "70b", rc.ModePretrain, "a3-mega")
	if err != nil {
		t.Fatal(err)
	}
	var llamaMega int
	for _, r := range rc.List() {
		if r.Model == rc.ModelLlama31 && r.Profile == "a3-mega" {
			llamaMega++
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: config(env, "  model = \"llama3.1\"\n  size = \"70b\"\n  mode = \"pretrain\"\n  profile = \"a3-mega\"\n"),
			Check: resource.ComposeTestCheckFunc(
				resource.TestCheckResourceAttr(addr, "recipes.#", "1"),
				resource.TestCheckResourceAttr(addr, "recipes.0.key", "llama3.1/70b/pretrain@a3-mega"),
				resource.TestCheckResourceAttr(addr, "recipes.0.gpu", "true"),
				resource.TestCheckResourceAttr(addr, "recipes.0.nodes", strconv.Itoa(mega.Nodes)),
				resource.TestCheckResourceAttr(addr, "recipes.0.tensor_parallel", strconv.Itoa(mega.TensorParallel)),
				resource.TestCheckResourceAttr(addr, "recipes.0.pipeline_parallel", strconv.Itoa(mega.PipelineParallel)),
				resource.TestCheckResourceAttr(addr, "recipes.0.precision", "fp8"),
				resource.TestCheckResourceAttr(addr, "recipes.0.global_batch", strconv.Itoa(mega.GlobalBatch)),
				resource.TestCheckResourceAttr(addr, "recipes.0.container", mega.Container),
				resource.TestCheckResourceAttr(addr, "recipes.0.needs_resume_from", "false"),
				resource.TestCheckResourceAttr(addr, "recipes.0.hyperparameters.seq_length", "8192"),
				resource.TestCheckResourceAttr(addr, "recipes.0.max_steps", "1168251"),
				resource.TestCheckResourceAttr(addr, "recipes.0.parameters", "70600000000"),
				resource.TestCheckResourceAttr(addr, "recipes.0.checkpoint_gib", strconv.FormatFloat(mega.CheckpointGiB(), 'f', -1, 64)),
				noCalls(env),
			),
		}, {
			Config: config(env, "  model = \"llama3.1\"\n  profile = \"a3-mega\"\n"),
			Check: resource.ComposeTestCheckFunc(
				resource.TestCheckResourceAttr(addr, "recipes.#", strconv.Itoa(llamaMega)),
				noCalls(env),
			),
		}, {
			Config: config(env, "  profile = \"cpu\"\n  mode = \"continued_pretrain\"\n  size = \"2m\"\n"),
			Check: resource.ComposeTestCheckFunc(
				resource.TestCheckResourceAttr(addr, "recipes.#", "1"),
				resource.TestCheckResourceAttr(addr, "recipes.0.model", "tiny-gpt"),
				resource.TestCheckResourceAttr(addr, "recipes.0.gpu", "false"),
				resource.TestCheckResourceAttr(addr, "recipes.0.needs_resume_from", "true"),
				resource.TestCheckNoResourceAttr(addr, "recipes.0.container"),
				noCalls(env),
			),
		}, {
			Config: config(env, "  mode = \"rl\"\n  profile = \"a4x\"\n"),
			Check: resource.ComposeTestCheckFunc(
				resource.TestCheckResourceAttr(addr, "recipes.#", "2"),
				resource.TestCheckResourceAttr(addr, "recipes.0.key", "llama3.1/70b/rl@a4x"),
				resource.TestCheckResourceAttr(addr, "recipes.0.launcher", "nemo-rl"),
				resource.TestCheckResourceAttr(addr, "recipes.0.nodes", "16"),
				resource.TestCheckResourceAttr(addr, "recipes.1.key", "llama3.1/8b/rl@a4x"),
				noCalls(env),
			),
		}, {
			Config: config(env, ""),
			Check: resource.ComposeTestCheckFunc(
				resource.TestCheckResourceAttr(addr, "recipes.#", strconv.Itoa(len(rc.List()))),
				noCalls(env),
			),
		}},
	})
}

// An unknown filter value fails at plan, naming the attribute and the
// valid values.
func TestAccRecipes_invalid(t *testing.T) {
	env := acctest.New(t)
	for _, tc := range []struct{ name, body, want string }{
		{"model", "  model = \"llama9\"\n", `model: "llama9" is in no recipe of the catalog; valid: gemma2, llama3.1, tiny-gpt`},
		{"mode", "  mode = \"rlhf\"\n", `mode: "rlhf" is in no recipe of the catalog; valid: continued_pretrain,\s+pretrain, rl, sft`},
		{"profile", "  profile = \"a2\"\n", `profile: "a2" is in no recipe of the catalog; valid: a3-high, a3-mega, a3-ultra, a4, a4x, cpu`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				Steps: []resource.TestStep{{
					Config: config(env, tc.body), PlanOnly: true,
					ExpectError: acctest.ErrorMatching(tc.want),
				}},
			})
		})
	}
	if c := env.Calls(); c.Total != 0 {
		t.Fatalf("%d API calls", c.Total)
	}
}

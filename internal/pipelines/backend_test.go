package pipelines_test

import (
	"cmp"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	storage "google.golang.org/api/storage/v1"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

// lockConfig is a configuration on the blueprints' gcs backend whose apply holds the state lock
// until the file named by var.release exists (a local-exec that waits), so a test decides when
// the holder lets go.
const lockConfig = `terraform {
  backend "gcs" {}
}

variable "round" {
  type = number
}

variable "release" {
  type = string
}

resource "terraform_data" "held" {
  triggers_replace = var.round

  provisioner "local-exec" {
    command = "while [ ! -e '${var.release}' ]; do sleep 0.1; done"
  }
}
`

// The state bucket and the gcs backend's lock on the local cloud: pipelines/bootstrap makes the
// state bucket (versioned, deletion protection on, its destroy refused at plan); two concurrent
// applies of one state: the second is refused naming the holder (the lock's ID and Who), the first
// completes, and every generation of the state object the bucket keeps is a whole state of one
// lineage with rising serials; a holder killed mid-apply leaves its lock, which refuses the next
// apply until terraform force-unlock ID releases it, and the state stays whole.
func TestAccPipeline_stateBucketAndLock(t *testing.T) {
	env := acctest.New(t)
	tree := checkout(t)
	c := newCLI(t, env.Env)
	tf := func(dir string, args ...string) (string, int) {
		return c.run(dir, nil, "terraform", append(args, "-no-color")...)
	}
	must := func(dir string, args ...string) string {
		t.Helper()
		out, rc := tf(dir, args...)
		if rc != 0 {
			t.Fatalf("terraform %s exited %d:\n%s", strings.Join(args, " "), rc, out)
		}
		return out
	}

	// The bootstrap, as a team runs it once per environment (local state).
	boot := filepath.Join(tree, "pipelines", "bootstrap")
	vars := []string{"-var", "project_id=" + acctest.StateProject, "-var", "bucket_name=" + acctest.StateBucket}
	must(boot, "init", "-input=false")
	must(boot, append([]string{"apply", "-input=false", "-auto-approve"}, vars...)...)
	if got := strings.TrimSpace(must(boot, "output", "-raw", "versioning")); got != "true" {
		t.Fatalf("the state bucket's versioning is %q, want true", got)
	}
	if out, rc := tf(boot, append([]string{"plan", "-destroy", "-input=false"}, vars...)...); rc == 0 || !strings.Contains(out, "is protected") {
		t.Fatalf("a destroy of the state bucket was not refused at plan (exit %d):\n%s", rc, out)
	}

	// A configuration on the gcs backend, initialised as pipelines/run.sh does on the local cloud.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(lockConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	const prefix = "hypercompute/locktest"
	must(dir, "init", "-input=false", "-backend-config=bucket="+acctest.StateBucket, "-backend-config=prefix="+prefix,
		"-backend-config=storage_custom_endpoint="+env.URL+"/storage/v1/", "-backend-config=access_token=local-cloud")
	release := filepath.Join(t.TempDir(), "release")
	apply := func(round string) []string {
		return []string{"apply", "-no-color", "-input=false", "-auto-approve", "-lock-timeout=0s", "-var", "round=" + round, "-var", "release=" + release}
	}

	// Two concurrent applies: the second is refused while the first holds the lock.
	first := c.start(dir, nil, "terraform", apply("1")...)
	lock := waitLock(t, env.Env, prefix, first)
	if lock.Operation != "OperationTypeApply" || lock.Who == "" {
		t.Errorf("the lock names operation %q by %q", lock.Operation, lock.Who)
	}
	out, rc := c.run(dir, nil, "terraform", apply("1")...)
	requireRefusedByLock(t, "a second apply", out, rc, lock)
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, rc := first.wait(); rc != 0 {
		t.Fatalf("the first apply failed (exit %d):\n%s", rc, out)
	}
	if _, held := object(t, env.Env, prefix+"/default.tflock"); held {
		t.Fatal("the lock is still held after the apply ended")
	}
	applied := readState(t, env.Env, prefix)
	if len(applied.Resources) != 1 || applied.Resources[0].Name != "held" {
		t.Fatalf("the applied state holds %+v, want terraform_data.held", applied.Resources)
	}
	requireGenerations(t, env, prefix+"/default.tfstate", applied.Lineage)

	// A holder killed mid-apply (a runner that died) leaves its lock behind.
	if err := os.Remove(release); err != nil {
		t.Fatal(err)
	}
	dead := c.start(dir, nil, "terraform", apply("2")...)
	stale := waitLock(t, env.Env, prefix, dead)
	dead.kill()
	dead.wait()
	out, rc = c.run(dir, nil, "terraform", apply("2")...)
	requireRefusedByLock(t, "an apply after the holder died", out, rc, stale)
	must(dir, "force-unlock", "-force", stale.ID)
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, rc := c.run(dir, nil, "terraform", apply("2")...); rc != 0 {
		t.Fatalf("the apply after force-unlock failed (exit %d):\n%s", rc, out)
	}
	after := readState(t, env.Env, prefix)
	if after.Lineage != applied.Lineage || after.Serial <= applied.Serial {
		t.Errorf("after force-unlock and apply the state is lineage %s serial %d; before: lineage %s serial %d",
			after.Lineage, after.Serial, applied.Lineage, applied.Serial)
	}
	requireGenerations(t, env, prefix+"/default.tfstate", applied.Lineage)
}

// requireGenerations fails unless every generation the versioned bucket keeps of the state object
// is a whole state of lineage, with serials that never go back: no write ever left a torn or
// foreign state, and each earlier state can be restored.
func requireGenerations(t *testing.T, env *acctest.Env, name, lineage string) {
	t.Helper()
	svc, err := env.Clients().Storage(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	objs, err := svc.Objects.List(acctest.StateBucket).Prefix(name).Versions(true).Do()
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(objs.Items, func(a, b *storage.Object) int { return cmp.Compare(a.Generation, b.Generation) })
	if len(objs.Items) < 2 {
		t.Fatalf("the bucket keeps %d generations of %s, want the earlier states too", len(objs.Items), name)
	}
	serial := -1
	for _, o := range objs.Items {
		resp, err := svc.Objects.Get(acctest.StateBucket, o.Name).Generation(o.Generation).Download()
		if err != nil {
			t.Fatal(err)
		}
		var s tfState
		err = json.NewDecoder(resp.Body).Decode(&s)
		_ = resp.Body.Close()
		if err != nil || s.Lineage != lineage || s.Serial < serial {
			t.Fatalf("generation %d of %s is not a whole state of lineage %s after serial %d: %+v (%v)", o.Generation, name, lineage, serial, s, err)
		}
		serial = s.Serial
	}
}

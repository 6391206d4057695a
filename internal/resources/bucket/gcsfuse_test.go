package bucket_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
)

// The proof of Cloud Storage on the local cloud: a bucket Terraform created is mounted with the real gcsfuse
// (`mount -t gcsfuse`, with the options a node's payload uses) in two VMs of the local runtime; a checkpoint one
// VM writes through its mount (written to a temporary name and renamed, with PyTorch where it is installed) is
// read by the other through its own and is an object in the JSON API.
func TestAccBucket_gcsfuseMountsInTwoVMs(t *testing.T) {
	// Where the VMs' mount.gcsfuse looks for it.
	if _, err := exec.LookPath("gcsfuse"); err != nil {
		if _, err := os.Stat("/usr/local/bin/gcsfuse"); err != nil {
			t.Skip("skipping: gcsfuse is not installed (scripts/install-deps.sh builds it into /usr/local/bin)")
		}
	}
	if _, err := os.Stat("/dev/fuse"); err != nil {
		t.Skipf("skipping: no FUSE device on this machine: %v", err)
	}
	env := acctest.NewWithRuntime(t)
	const bucket = "hc-e2e-checkpoints"
	cfg := env.Config(`
resource "hypercompute_network" "net" {
  name   = "hc-gcs"
  subnet = { cidr = "10.0.0.0/20" }
}
` + bucketConfig(bucket, `  purpose       = "checkpoints"
  force_destroy = true
`+unprotected))
	mount := "set -euo pipefail\nmkdir -p /gcs/ckpt\nmount -t gcsfuse -o rw,_netdev,allow_other,implicit_dirs,profile=aiml-checkpointing " + bucket + " /gcs/ckpt\n"
	writer := mount + `mkdir -p /gcs/ckpt/run-1
echo "step 100 written by $(hostname)" > /gcs/ckpt/run-1/step-100.txt.tmp
mv /gcs/ckpt/run-1/step-100.txt.tmp /gcs/ckpt/run-1/step-100.txt
echo "WROTE run-1/step-100.txt"
`
	reader := mount + `for i in $(seq 1 100); do
  [ -e /gcs/ckpt/run-1/step-100.txt ] && break
  sleep 0.2
done
echo "READ: $(cat /gcs/ckpt/run-1/step-100.txt)"
`
	// Where PyTorch is installed (scripts/install-deps.sh installs it), the checkpoint is also a real one:
	// torch.save to a temporary name, renamed into place, as the recipes write them, and torch.load in the other VM.
	torch := exec.Command("/usr/bin/python3", "-c", "import torch").Run() == nil
	if torch {
		writer += `/usr/bin/python3 -c 'import torch; torch.save({"step": 100, "w": torch.arange(1000.)}, "/gcs/ckpt/run-1/model.pt.tmp")'
mv /gcs/ckpt/run-1/model.pt.tmp /gcs/ckpt/run-1/model.pt
`
		reader += `/usr/bin/python3 -c 'import torch; c = torch.load("/gcs/ckpt/run-1/model.pt"); print("LOADED step", c["step"], float(c["w"].sum()))'
`
	} else {
		t.Log("PyTorch is not installed: the VMs exchange a plain checkpoint file only")
	}
	c := env.Clients()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.FactoriesWith(),
		CheckDestroy:             noBuckets(env),
		Steps: []resource.TestStep{{
			Config: cfg,
			Check: func(*terraform.State) error {
				defer deleteVMs(ctx, c, "hc-writer", "hc-reader")
				if err := createVM(ctx, c, "hc-writer", "hc-gcs-subnet", writer); err != nil {
					return err
				}
				if _, err := waitSerial(ctx, c, "hc-writer", "startup-script exit status 0"); err != nil {
					return err
				}
				if err := createVM(ctx, c, "hc-reader", "hc-gcs-subnet", reader); err != nil {
					return err
				}
				out, err := waitSerial(ctx, c, "hc-reader", "startup-script exit status 0")
				if err != nil {
					return err
				}
				if !strings.Contains(out, "READ: step 100 written by hc-writer") {
					return fmt.Errorf("hc-reader did not read what hc-writer wrote; its console:\n%s", out)
				}
				if torch && !strings.Contains(out, "LOADED step 100 499500.0") {
					return fmt.Errorf("hc-reader did not load hc-writer's PyTorch checkpoint; its console:\n%s", out)
				}
				svc, err := c.Storage(ctx)
				if err != nil {
					return err
				}
				o, err := svc.Objects.Get(bucket, "run-1/step-100.txt").Context(ctx).Do()
				if err != nil {
					return fmt.Errorf("the checkpoint is not an object in the API: %w", err)
				}
				if want := uint64(len("step 100 written by hc-writer\n")); o.Size != want {
					return fmt.Errorf("object run-1/step-100.txt has %d bytes, want %d", o.Size, want)
				}
				list, err := svc.Objects.List(bucket).Prefix("run-1/").Context(ctx).Do()
				if err != nil {
					return err
				}
				var names []string
				for _, it := range list.Items {
					names = append(names, it.Name)
				}
				all := strings.Join(names, " ")
				if !strings.Contains(all, "run-1/step-100.txt") || (torch && !strings.Contains(all, "run-1/model.pt")) || strings.Contains(all, ".tmp") {
					return fmt.Errorf("objects under run-1/: %v, want the checkpoints and no temporary file", names)
				}
				return nil
			},
		}},
	})
}

// createVM creates a plain VM on subnet whose startup script is script, running as a service account with
// devstorage.read_write: gcsfuse authenticates with the VM's token, which the local cloud holds to its scopes.
func createVM(ctx context.Context, c *gcp.Clients, name, subnet, script string) error {
	op, err := c.Instances.Insert(ctx, &computepb.InsertInstanceRequest{Project: acctest.Project, Zone: acctest.Zone, InstanceResource: &computepb.Instance{
		Name:        proto.String(name),
		MachineType: proto.String("zones/" + acctest.Zone + "/machineTypes/e2-standard-2"),
		Disks: []*computepb.AttachedDisk{{Boot: proto.Bool(true), AutoDelete: proto.Bool(true),
			InitializeParams: &computepb.AttachedDiskInitializeParams{SourceImage: proto.String("projects/debian-cloud/global/images/family/debian-12")}}},
		NetworkInterfaces: []*computepb.NetworkInterface{{Subnetwork: proto.String("regions/" + acctest.Region + "/subnetworks/" + subnet)}},
		Metadata:          &computepb.Metadata{Items: []*computepb.Items{{Key: proto.String("startup-script"), Value: proto.String(script)}}},
		ServiceAccounts: []*computepb.ServiceAccount{{Email: proto.String("default"),
			Scopes: []string{"https://www.googleapis.com/auth/devstorage.read_write"}}},
	}})
	if err == nil {
		err = op.Wait(ctx)
	}
	if err != nil {
		return fmt.Errorf("creating VM %s: %w", name, err)
	}
	return nil
}

// waitSerial waits for want on the VM's console; a startup script that fails instead ends the wait with the
// console in the error.
func waitSerial(ctx context.Context, c *gcp.Clients, name, want string) (string, error) {
	for {
		out, err := c.Instances.GetSerialPortOutput(ctx, &computepb.GetSerialPortOutputInstanceRequest{Project: acctest.Project, Zone: acctest.Zone, Instance: name})
		if err != nil {
			return "", fmt.Errorf("console of %s: %w", name, err)
		}
		s := out.GetContents()
		if strings.Contains(s, want) {
			return s, nil
		}
		if strings.Contains(s, "startup-script exit status") {
			return s, fmt.Errorf("%s's startup script failed; its console:\n%s", name, s)
		}
		select {
		case <-ctx.Done():
			return s, fmt.Errorf("%s's console never showed %q; it holds:\n%s", name, want, s)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// deleteVMs deletes the VMs (killing their gcsfuse), so the network can be destroyed after them.
func deleteVMs(ctx context.Context, c *gcp.Clients, names ...string) {
	for _, n := range names {
		if op, err := c.Instances.Delete(ctx, &computepb.DeleteInstanceRequest{Project: acctest.Project, Zone: acctest.Zone, Instance: n}); err == nil {
			_ = op.Wait(ctx)
		}
	}
}

package gcp_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
)

// ResolveImage against the local cloud: images and families resolve, a missing one is a typed not-found naming
// what is missing, a malformed reference fails before any call, and nothing is ever written.
func TestResolveImage(t *testing.T) {
	env := emulatortest.Start(t)
	ctx := context.Background()
	c, err := gcp.NewClients(ctx, gcp.Config{Project: "p", Region: "us-central1", Zone: "us-central1-a", EmulatorHost: env.Host})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	img, err := gcp.ResolveImage(ctx, c, "projects/debian-cloud/global/images/family/debian-12")
	if err != nil || img.GetFamily() != "debian-12" || img.GetName() == "" {
		t.Fatalf("family: %v %v", img, err)
	}
	byName, err := gcp.ResolveImage(ctx, c, img.GetSelfLink())
	if err != nil || byName.GetId() != img.GetId() {
		t.Fatalf("by selfLink: %v %v", byName, err)
	}

	_, err = gcp.ResolveImage(ctx, c, "projects/debian-cloud/global/images/family/debian-99")
	var nf *gcp.ImageNotFoundError
	if !errors.As(err, &nf) || nf.Family != "debian-99" || nf.Project != "debian-cloud" || !gcp.IsNotFound(err) {
		t.Fatalf("missing family: %T %v", err, err)
	}
	_, err = gcp.ResolveImage(ctx, c, "global/images/golden")
	if !errors.As(err, &nf) || nf.Name != "golden" || nf.Project != "p" {
		t.Fatalf("missing image in the provider's project: %T %v", err, err)
	}

	env.ResetCalls()
	if _, err := gcp.ResolveImage(ctx, c, "family/debian-12"); err == nil || errors.As(err, &nf) {
		t.Fatalf("malformed reference: %v", err)
	}
	calls := env.Calls()
	if calls.Total != 0 {
		t.Errorf("a malformed reference made %d calls", calls.Total)
	}

	// Read-only: no mutating call was made by any of the lookups.
	env.ResetCalls()
	_, _ = gcp.ResolveImage(ctx, c, "projects/ubuntu-os-cloud/global/images/family/ubuntu-2204-lts")
	if calls := env.Calls(); calls.Mutating != 0 || calls.Methods["compute.images.getFromFamily"].Count != 1 {
		t.Errorf("calls = %+v", calls)
	}
}

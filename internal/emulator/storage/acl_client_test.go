package storage_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	gcs "cloud.google.com/go/storage"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
)

// The Go client's ACL handles read and change the ACLs, and see the 400 of a uniform bucket as a googleapi error.
func TestACLsThroughTheGoClient(t *testing.T) {
	e := emulatortest.Start(t)
	ctx := context.Background()
	cl, err := gcs.NewClient(ctx, append(e.ClientOptions(), option.WithEndpoint(e.URL+"/storage/v1/"))...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	b := cl.Bucket("client-acl")
	if err := b.Create(ctx, project, nil); err != nil {
		t.Fatal(err)
	}
	num := emulator.ProjectNumber(project)
	rules, err := b.ACL().List(ctx)
	if err != nil || len(rules) != 3 || rules[0].Entity != gcs.ACLEntity("project-owners-"+num) || rules[0].Role != gcs.RoleOwner ||
		rules[0].ProjectTeam == nil || rules[0].ProjectTeam.Team != "owners" {
		t.Fatalf("bucket ACL: %v %+v", err, rules)
	}
	if err := b.DefaultObjectACL().Set(ctx, gcs.AllAuthenticatedUsers, gcs.RoleReader); err != nil {
		t.Fatal(err)
	}
	w := b.Object("data/shard-0").NewWriter(ctx)
	if _, err := w.Write([]byte("tokens")); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	obj := b.Object("data/shard-0")
	if err := obj.ACL().Set(ctx, gcs.ACLEntity("user-reader@example.com"), gcs.RoleReader); err != nil {
		t.Fatal(err)
	}
	got, err := obj.ACL().List(ctx)
	if err != nil || len(got) != 5 || got[3].Entity != gcs.AllAuthenticatedUsers || got[4].Email != "reader@example.com" {
		t.Fatalf("object ACL (the bucket's defaults at upload plus one): %v %+v", err, got)
	}
	if err := obj.ACL().Delete(ctx, gcs.AllAuthenticatedUsers); err != nil {
		t.Fatal(err)
	}
	attrs, err := obj.Attrs(ctx)
	// Attrs asks for the full projection: the object's own ACL, without the deleted entity.
	if err != nil || attrs.Etag == "" || len(attrs.ACL) != 4 || attrs.ACL[3].Entity != "user-reader@example.com" {
		t.Errorf("Attrs: %v, etag %q, acl %v", err, attrs.Etag, attrs.ACL)
	}

	if _, err := b.Update(ctx, gcs.BucketAttrsToUpdate{UniformBucketLevelAccess: &gcs.UniformBucketLevelAccess{Enabled: true}}); err != nil {
		t.Fatal(err)
	}
	_, err = b.ACL().List(ctx)
	var ge *googleapi.Error
	if !errors.As(err, &ge) || ge.Code != http.StatusBadRequest || !strings.Contains(ge.Message, "uniform bucket-level access") {
		t.Errorf("bucket ACL list under uniform access: %v", err)
	}
}

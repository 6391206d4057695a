package compute_test

import (
	"context"
	"net/url"
	"slices"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/api/iterator"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
)

// TestHTTPListFilterRegex: list filters as gcloud sends them (--filter="name:default" becomes
// name eq ".*\bdefault\b.*"): eq/ne take an RE2 regex that must match the whole field.
func TestHTTPListFilterRegex(t *testing.T) {
	env := emulatortest.Start(t)
	for _, n := range []string{"default", "my-default-net", "defaults", "other"} {
		if code, body := do(t, env, "POST", cz+"/global/networks", map[string]any{"name": n, "autoCreateSubnetworks": false}); code != 200 {
			t.Fatalf("networks.insert %s: %d %v", n, code, body)
		}
	}
	names := func(filter string) []string {
		t.Helper()
		code, body := do(t, env, "GET", cz+"/global/networks?filter="+url.QueryEscape(filter), nil)
		if code != 200 {
			t.Fatalf("filter %s: %d %v", filter, code, body)
		}
		var out []string
		for _, it := range items(t, body) {
			out = append(out, it["name"].(string))
		}
		slices.Sort(out)
		return out
	}
	for filter, want := range map[string][]string{
		`name eq ".*\bdefault\b.*"`:                        {"default", "my-default-net"},
		`(name eq ".*\bdefault\b.*")`:                      {"default", "my-default-net"},
		`name ne ".*\bdefault\b.*"`:                        {"defaults", "other"},
		`name eq "default"`:                                {"default"}, // whole-field match
		`name eq "my\-default\-net"`:                       {"my-default-net"},
		`name eq "DEFAULT"`:                                nil, // case-sensitive
		`(name eq "d.*") (autoCreateSubnetworks eq false)`: {"default", "defaults"},
	} {
		if got := names(filter); !slices.Equal(got, want) {
			t.Errorf("filter %s: %v, want %v", filter, got, want)
		}
	}
	code, body := do(t, env, "GET", cz+"/global/networks?filter="+url.QueryEscape(`name eq "("`), nil)
	wantError(t, code, body, 400, "invalid", "")

	// The Go client sends the filter as given.
	c := newClients(t, env)
	it := c.networks.List(context.Background(), &computepb.ListNetworksRequest{Project: project, Filter: proto.String(`name eq ".*\bdefault\b.*"`)})
	var got []string
	for {
		n, err := it.Next()
		if err == iterator.Done {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, n.GetName())
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"default", "my-default-net"}) {
		t.Errorf("Go client list: %v", got)
	}
}

package metadata_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	compute "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	gcemd "cloud.google.com/go/compute/metadata"
	"google.golang.org/api/option"
	"google.golang.org/protobuf/proto"

	computeemu "github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/compute"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/metadata"
)

const (
	project = "md-project"
	zone    = "us-central1-a"
	region  = "us-central1"
	vmName  = "node-1"
)

var vmKey = instances.InstanceKey(project, zone, vmName)

type env struct {
	t    *testing.T
	srv  *core.Server
	md   *metadata.Server
	url  string
	inst *compute.InstancesClient
	ctx  context.Context
	host string // the VM's metadata listener
}

// newEnv starts an emulator with one running VM (metadata "role=compute", a service account) and its
// metadata listener.
func newEnv(t *testing.T, items ...*computepb.Items) *env {
	t.Helper()
	srv := core.NewServer(core.Options{Seed: 3})
	computeemu.Register(srv)
	md := metadata.Register(srv, instances.Register(srv))
	hs := httptest.NewServer(srv.Router)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(func() { cancel(); hs.Close(); srv.Close() })
	opts := []option.ClientOption{option.WithEndpoint(hs.URL + "/"), option.WithoutAuthentication()}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	nets, err := compute.NewNetworksRESTClient(ctx, opts...)
	must(err)
	subs, err := compute.NewSubnetworksRESTClient(ctx, opts...)
	must(err)
	inst, err := compute.NewInstancesRESTClient(ctx, opts...)
	must(err)
	op, err := nets.Insert(ctx, &computepb.InsertNetworkRequest{Project: project, NetworkResource: &computepb.Network{Name: proto.String("net"), AutoCreateSubnetworks: proto.Bool(false)}})
	must(err)
	must(op.Wait(ctx))
	op, err = subs.Insert(ctx, &computepb.InsertSubnetworkRequest{Project: project, Region: region, SubnetworkResource: &computepb.Subnetwork{
		Name: proto.String("sub"), Network: proto.String("global/networks/net"), IpCidrRange: proto.String("10.8.0.0/24")}})
	must(err)
	must(op.Wait(ctx))
	all := append([]*computepb.Items{{Key: proto.String("role"), Value: proto.String("compute")}}, items...)
	op, err = inst.Insert(ctx, &computepb.InsertInstanceRequest{Project: project, Zone: zone, InstanceResource: &computepb.Instance{
		Name:        proto.String(vmName),
		MachineType: proto.String("zones/" + zone + "/machineTypes/n2-standard-8"),
		Disks: []*computepb.AttachedDisk{{Boot: proto.Bool(true), InitializeParams: &computepb.AttachedDiskInitializeParams{
			SourceImage: proto.String("projects/debian-cloud/global/images/family/debian-12")}}},
		NetworkInterfaces: []*computepb.NetworkInterface{{Subnetwork: proto.String("regions/" + region + "/subnetworks/sub")}},
		Metadata:          &computepb.Metadata{Items: all},
		Tags:              &computepb.Tags{Items: []string{"slurm", "compute"}},
		ServiceAccounts:   []*computepb.ServiceAccount{{Email: proto.String("default"), Scopes: []string{"https://www.googleapis.com/auth/cloud-platform"}}},
	}})
	must(err)
	must(op.Wait(ctx))
	host, err := md.StartFor(vmKey)
	must(err)
	return &env{t: t, srv: srv, md: md, url: hs.URL, inst: inst, ctx: ctx, host: host}
}

// get fetches a metadata path from the VM's listener with the Google flavor header.
func (e *env) get(path string) (int, string, http.Header) {
	e.t.Helper()
	return e.do("GET", "http://"+e.host+"/computeMetadata/v1/"+path, "", true)
}

func (e *env) do(method, url, body string, flavor bool) (int, string, http.Header) {
	e.t.Helper()
	req, _ := http.NewRequestWithContext(e.ctx, method, url, strings.NewReader(body))
	if flavor {
		req.Header.Set("Metadata-Flavor", "Google")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

func (e *env) setMetadata(items ...*computepb.Items) {
	e.t.Helper()
	cur, err := e.inst.Get(e.ctx, &computepb.GetInstanceRequest{Project: project, Zone: zone, Instance: vmName})
	if err != nil {
		e.t.Fatal(err)
	}
	op, err := e.inst.SetMetadata(e.ctx, &computepb.SetMetadataInstanceRequest{Project: project, Zone: zone, Instance: vmName,
		MetadataResource: &computepb.Metadata{Fingerprint: cur.GetMetadata().Fingerprint, Items: items}})
	if err != nil {
		e.t.Fatal(err)
	}
	if err := op.Wait(e.ctx); err != nil {
		e.t.Fatal(err)
	}
}

func TestFlavorHeaderRequired(t *testing.T) {
	e := newEnv(t)
	code, body, h := e.do("GET", "http://"+e.host+"/computeMetadata/v1/instance/name", "", false)
	if code != 403 || !strings.Contains(body, "Metadata-Flavor") || h.Get("Metadata-Flavor") != "Google" {
		t.Fatalf("without header: %d %q flavor %q", code, body, h.Get("Metadata-Flavor"))
	}
	code, body, _ = e.get("instance/name")
	if code != 200 || body != vmName {
		t.Fatalf("with header: %d %q", code, body)
	}
	req, _ := http.NewRequest("GET", "http://"+e.host+"/computeMetadata/v1/instance/name", nil)
	req.Header.Set("Metadata-Flavor", "Google")
	req.Header.Set("X-Forwarded-For", "1.2.3.4")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Fatalf("forwarded request: %d", resp.StatusCode)
	}
}

func TestValuesListingsAndRecursiveJSON(t *testing.T) {
	e := newEnv(t)
	num := core.ProjectNumber(project)
	for path, want := range map[string]string{
		"instance/attributes/role":                 "compute",
		"instance/attributes/":                     "role\n",
		"instance/hostname":                        vmName + "." + zone + ".c." + project + ".internal",
		"instance/zone":                            "projects/" + num + "/zones/" + zone,
		"instance/machine-type":                    "projects/" + num + "/machineTypes/n2-standard-8",
		"instance/network-interfaces/0/ip":         "10.8.0.2",
		"instance/network-interfaces/0/gateway":    "10.8.0.1",
		"instance/network-interfaces/0/subnetmask": "255.255.255.0",
		"instance/tags":                            `["slurm","compute"]`,
		"instance/service-accounts/default/email":  num + "-compute@developer.gserviceaccount.com",
		"project/project-id":                       project,
		"project/numeric-project-id":               num,
	} {
		if code, body, _ := e.get(path); code != 200 || body != want {
			t.Errorf("%s: %d %q, want %q", path, code, body, want)
		}
	}
	if code, _, _ := e.get("instance/attributes/missing"); code != 404 {
		t.Errorf("missing attribute: %d", code)
	}
	code, body, _ := e.get("instance/")
	if code != 200 || !strings.Contains(body, "attributes/\n") || !strings.Contains(body, "network-interfaces/\n") || !strings.Contains(body, "\nname\n") {
		t.Errorf("instance listing: %d %q", code, body)
	}
	code, body, h := e.get("instance/?recursive=true")
	if code != 200 || !strings.HasPrefix(h.Get("Content-Type"), "application/json") {
		t.Fatalf("recursive: %d %s", code, h.Get("Content-Type"))
	}
	var rec struct {
		ID                json.Number       `json:"id"`
		Name              string            `json:"name"`
		MachineType       string            `json:"machineType"`
		Attributes        map[string]string `json:"attributes"`
		NetworkInterfaces []struct {
			IP  string `json:"ip"`
			MTU int    `json:"mtu"`
		} `json:"networkInterfaces"`
		ServiceAccounts map[string]struct {
			Email  string   `json:"email"`
			Scopes []string `json:"scopes"`
		} `json:"serviceAccounts"`
	}
	if err := json.Unmarshal([]byte(body), &rec); err != nil {
		t.Fatalf("recursive JSON: %v\n%s", err, body)
	}
	if rec.Name != vmName || rec.Attributes["role"] != "compute" || len(rec.NetworkInterfaces) != 1 || rec.NetworkInterfaces[0].IP != "10.8.0.2" ||
		rec.NetworkInterfaces[0].MTU != 1460 || rec.ID == "" || len(rec.ServiceAccounts["default"].Scopes) != 1 {
		t.Errorf("recursive JSON content: %+v", rec)
	}
	if code, body, _ := e.get("instance/attributes/?recursive=true"); code != 200 || body != `{"role":"compute"}` {
		t.Errorf("attributes recursive: %d %s", code, body)
	}
	if code, body, _ := e.get("instance/id?alt=json"); code != 200 || strings.HasPrefix(body, `"`) {
		t.Errorf("id alt=json should be a number: %d %s", code, body)
	}
	if code, body, _ := e.get("instance/name?alt=json"); code != 200 || body != `"`+vmName+`"` {
		t.Errorf("name alt=json: %d %s", code, body)
	}
	code, body, _ = e.get("instance/service-accounts/default/token")
	var tok struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int    `json:"expires_in"`
		TokenType   string `json:"token_type"`
	}
	if code != 200 || json.Unmarshal([]byte(body), &tok) != nil || tok.AccessToken == "" || tok.TokenType != "Bearer" || tok.ExpiresIn <= 0 {
		t.Errorf("token: %d %s", code, body)
	}
}

func TestWaitForChange(t *testing.T) {
	e := newEnv(t)
	_, _, h := e.get("instance/attributes/role")
	etag := h.Get("ETag")
	if etag == "" {
		t.Fatal("no ETag")
	}
	// A stale last_etag answers at once.
	start := time.Now()
	if code, body, _ := e.get("instance/attributes/role?wait_for_change=true&last_etag=0000"); code != 200 || body != "compute" || time.Since(start) > time.Second {
		t.Fatalf("stale etag: %d %q after %v", code, body, time.Since(start))
	}
	// timeout_sec ends the wait with the unchanged value.
	if code, body, h2 := e.get("instance/attributes/role?wait_for_change=true&timeout_sec=1&last_etag=" + etag); code != 200 || body != "compute" || h2.Get("ETag") != etag {
		t.Fatalf("timeout: %d %q", code, body)
	}
	// The current etag blocks until setMetadata changes the value.
	type result struct {
		body, etag string
	}
	done := make(chan result, 1)
	go func() {
		_, body, h := e.get("instance/attributes/?recursive=true&wait_for_change=true&last_etag=" + recursiveETag(e))
		done <- result{body, h.Get("ETag")}
	}()
	select {
	case r := <-done:
		t.Fatalf("wait returned before any change: %q", r.body)
	case <-time.After(150 * time.Millisecond):
	}
	e.setMetadata(&computepb.Items{Key: proto.String("role"), Value: proto.String("controller")})
	select {
	case r := <-done:
		if r.body != `{"role":"controller"}` || r.etag == "" {
			t.Fatalf("after change: %q etag %q", r.body, r.etag)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("wait_for_change did not return after setMetadata")
	}
}

func recursiveETag(e *env) string {
	_, _, h := e.get("instance/attributes/?recursive=true")
	return h.Get("ETag")
}

func TestGuestAttributesWriteThenAPIRead(t *testing.T) {
	e := newEnv(t)
	url := "http://" + e.host + "/computeMetadata/v1/instance/guest-attributes/hypercompute/config-hash"
	if code, body, _ := e.do("PUT", url, "abc123", true); code != 403 || !strings.Contains(body, "disabled") {
		t.Fatalf("PUT while disabled: %d %q", code, body)
	}
	e.setMetadata(&computepb.Items{Key: proto.String("enable-guest-attributes"), Value: proto.String("TRUE")})
	if code, body, _ := e.do("PUT", url, "abc123", false); code != 403 {
		t.Fatalf("PUT without flavor: %d %q", code, body)
	}
	if code, body, _ := e.do("PUT", url, "abc123", true); code != 200 {
		t.Fatalf("PUT: %d %q", code, body)
	}
	if code, body, _ := e.get("instance/guest-attributes/hypercompute/config-hash"); code != 200 || body != "abc123" {
		t.Fatalf("read back: %d %q", code, body)
	}
	ga, err := e.inst.GetGuestAttributes(e.ctx, &computepb.GetGuestAttributesInstanceRequest{Project: project, Zone: zone, Instance: vmName, QueryPath: proto.String("hypercompute/")})
	if err != nil {
		t.Fatal(err)
	}
	if items := ga.GetQueryValue().GetItems(); len(items) != 1 || items[0].GetNamespace() != "hypercompute" || items[0].GetKey() != "config-hash" || items[0].GetValue() != "abc123" {
		t.Fatalf("getGuestAttributes: %v", ga)
	}
	if code, _, _ := e.do("DELETE", url, "", true); code != 200 {
		t.Fatalf("DELETE: %d", code)
	}
	if code, _, _ := e.get("instance/guest-attributes/hypercompute/config-hash"); code != 404 {
		t.Fatalf("after delete: %d", code)
	}
}

func TestGoMetadataClientWithPerVMListener(t *testing.T) {
	e := newEnv(t)
	// The admin call answers the same listener.
	resp, err := http.Post(e.url+"/emulator/v1/projects/"+project+"/zones/"+zone+"/instances/"+vmName+":metadataServer", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	var started struct{ Host string }
	_ = json.NewDecoder(resp.Body).Decode(&started)
	resp.Body.Close()
	if resp.StatusCode != 200 || started.Host != e.host {
		t.Fatalf("admin start: %d %+v, want host %s", resp.StatusCode, started, e.host)
	}
	t.Setenv("GCE_METADATA_HOST", e.host)
	c := gcemd.NewClient(&http.Client{Timeout: 10 * time.Second})
	if !gcemd.OnGCE() {
		t.Error("OnGCE false with GCE_METADATA_HOST set")
	}
	checks := map[string]func() (string, error){
		project:    func() (string, error) { return c.ProjectIDWithContext(e.ctx) },
		vmName:     func() (string, error) { return c.InstanceNameWithContext(e.ctx) },
		zone:       func() (string, error) { return c.ZoneWithContext(e.ctx) },
		"10.8.0.2": func() (string, error) { return c.InternalIPWithContext(e.ctx) },
		"compute":  func() (string, error) { return c.InstanceAttributeValueWithContext(e.ctx, "role") },
	}
	for want, get := range checks {
		if got, err := get(); err != nil || got != want {
			t.Errorf("metadata client: got %q, %v; want %q", got, err, want)
		}
	}
	if _, err := c.InstanceAttributeValueWithContext(e.ctx, "nope"); err == nil {
		t.Error("missing attribute: no error")
	}
	// Subscribe sees a metadata change.
	seen := make(chan string, 4)
	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	go func() {
		_ = c.SubscribeWithContext(ctx, "instance/attributes/role", func(_ context.Context, v string, ok bool) error {
			seen <- v
			return nil
		})
	}()
	if v := <-seen; v != "compute" {
		t.Fatalf("first value %q", v)
	}
	e.setMetadata(&computepb.Items{Key: proto.String("role"), Value: proto.String("login")})
	select {
	case v := <-seen:
		if v != "login" {
			t.Fatalf("changed value %q", v)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Subscribe did not see the change")
	}
	cancel()

	// Deleting the VM closes its listener.
	op, err := e.inst.Delete(e.ctx, &computepb.DeleteInstanceRequest{Project: project, Zone: zone, Instance: vmName})
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Wait(e.ctx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Second)
	for {
		conn, err := net.DialTimeout("tcp", e.host, 200*time.Millisecond)
		if err != nil {
			break
		}
		conn.Close()
		if time.Now().After(deadline) {
			t.Fatal("listener still open after the VM was deleted")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestSourceAddressRoute(t *testing.T) {
	e := newEnv(t)
	req := httptest.NewRequest("GET", "/computeMetadata/v1/instance/name", nil)
	req.RemoteAddr = "10.8.0.2:41000"
	req.Header.Set("Metadata-Flavor", "Google")
	rec := httptest.NewRecorder()
	e.srv.Router.ServeHTTP(rec, req)
	if rec.Code != 200 || rec.Body.String() != vmName {
		t.Fatalf("by source address: %d %q", rec.Code, rec.Body.String())
	}
	req.RemoteAddr = "10.9.9.9:41000"
	rec = httptest.NewRecorder()
	e.srv.Router.ServeHTTP(rec, req)
	if rec.Code != 404 {
		t.Fatalf("unknown source address: %d", rec.Code)
	}
}

package lustre_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/api/option"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp/lustre"
)

// fakeLustre is a minimal Lustre API: instances in memory, operations that finish on
// their second poll, list pages of pageSize (2 by default).
type fakeLustre struct {
	mu         sync.Mutex
	instances  map[string]*lustre.Instance
	order      []string
	ops        map[string]*lustre.Operation
	polls      map[string]int
	requestIDs []string
	bodies     []string
	failNext   *lustre.Status
}

func newFakeLustre(t *testing.T) (*fakeLustre, *lustre.Client) {
	f := &fakeLustre{instances: map[string]*lustre.Instance{}, ops: map[string]*lustre.Operation{}, polls: map[string]int{}}
	srv := httptest.NewServer(http.StripPrefix("/lustre", f))
	t.Cleanup(srv.Close)
	c, err := lustre.NewClient(context.Background(),
		option.WithHTTPClient(srv.Client()), option.WithEndpoint(srv.URL+"/lustre/"))
	if err != nil {
		t.Fatal(err)
	}
	c.PollInitial, c.PollMax = time.Millisecond, 2*time.Millisecond
	return f, c
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func apiError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"code": status, "message": msg, "status": code}})
}

func (f *fakeLustre) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	path := strings.TrimPrefix(r.URL.Path, "/v1/")
	q := r.URL.Query()
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/instances"):
		f.requestIDs = append(f.requestIDs, q.Get("requestId"))
		f.bodies = append(f.bodies, string(body))
		name := strings.TrimSuffix(path, "instances") + "instances/" + q.Get("instanceId")
		if _, ok := f.instances[name]; ok {
			apiError(w, 409, "ALREADY_EXISTS", "Resource '"+name+"' already exists")
			return
		}
		inst := &lustre.Instance{}
		if err := json.Unmarshal(body, inst); err != nil {
			apiError(w, 400, "INVALID_ARGUMENT", err.Error())
			return
		}
		inst.Name, inst.State = name, lustre.StateActive
		inst.MountPoint = "10.0.0.2@tcp:/" + inst.Filesystem
		opName := strings.Split(path, "/instances")[0] + "/operations/op-" + strconv.Itoa(len(f.ops)+1)
		op := &lustre.Operation{Name: opName}
		if f.failNext != nil {
			op.Error = f.failNext
			f.failNext = nil
		} else {
			f.instances[name] = inst
			f.order = append(f.order, name)
			op.Response, _ = lustre.AnyJSON(lustre.InstanceTypeURL, inst)
		}
		f.ops[opName] = op
		writeJSON(w, 200, lustre.Operation{Name: opName})
	case r.Method == http.MethodGet && strings.Contains(path, "/operations/"):
		op, ok := f.ops[path]
		if !ok {
			apiError(w, 404, "NOT_FOUND", "operation not found")
			return
		}
		f.polls[path]++
		if f.polls[path] < 2 {
			writeJSON(w, 200, lustre.Operation{Name: op.Name})
			return
		}
		done := *op
		done.Done = true
		writeJSON(w, 200, done)
	case r.Method == http.MethodGet && strings.HasSuffix(path, "/instances"):
		size := 2
		if s := q.Get("pageSize"); s != "" {
			size, _ = strconv.Atoi(s)
		}
		start, _ := strconv.Atoi(q.Get("pageToken"))
		page := lustre.ListInstancesResponse{}
		for i := start; i < len(f.order) && i < start+size; i++ {
			page.Instances = append(page.Instances, f.instances[f.order[i]])
		}
		if start+size < len(f.order) {
			page.NextPageToken = strconv.Itoa(start + size)
		}
		writeJSON(w, 200, page)
	case r.Method == http.MethodGet:
		inst, ok := f.instances[path]
		if !ok {
			apiError(w, 404, "NOT_FOUND", "Resource '"+path+"' was not found")
			return
		}
		// A server may write int64 as a bare number; the client must accept it.
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"name":%q,"filesystem":%q,"capacityGib":%d,"perUnitStorageThroughput":"%d","state":%q,"mountPoint":%q}`,
			inst.Name, inst.Filesystem, inst.CapacityGib, inst.PerUnitStorageThroughput, inst.State, inst.MountPoint)
	default:
		apiError(w, 404, "NOT_FOUND", "no route")
	}
}

const parent = "projects/p/locations/us-central1-a"

func TestCreateWaitGet(t *testing.T) {
	f, c := newFakeLustre(t)
	ctx := context.Background()
	op, err := c.CreateInstance(ctx, parent, "scratch", &lustre.Instance{
		Filesystem: "scratch", CapacityGib: 18000, PerUnitStorageThroughput: 1000,
		Network: "projects/p/global/networks/n", Labels: map[string]string{"team": "ml"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if op.Done || op.Name == "" {
		t.Fatalf("create answered %+v", op)
	}
	inst, err := c.WaitOperation(ctx, op)
	if err != nil {
		t.Fatalf("wait: %v", err)
	}
	if inst.Name != parent+"/instances/scratch" || inst.MountPoint != "10.0.0.2@tcp:/scratch" || inst.Labels["team"] != "ml" {
		t.Errorf("waited instance %+v", inst)
	}
	got, err := c.GetInstance(ctx, inst.Name)
	if err != nil {
		t.Fatal(err)
	}
	if got.CapacityGib != 18000 || got.PerUnitStorageThroughput != 1000 || got.State != lustre.StateActive {
		t.Errorf("got %+v", got)
	}
	// proto3 JSON: int64 fields go out as strings, and a requestId rides on the create.
	if !strings.Contains(f.bodies[0], `"capacityGib":"18000"`) || !strings.Contains(f.bodies[0], `"perUnitStorageThroughput":"1000"`) {
		t.Errorf("create body %s", f.bodies[0])
	}
	if f.requestIDs[0] == "" {
		t.Error("create sent no requestId")
	}
}

func TestNotFoundAndAlreadyExistsAreClassified(t *testing.T) {
	_, c := newFakeLustre(t)
	ctx := context.Background()
	_, err := c.GetInstance(ctx, parent+"/instances/nope")
	if !gcp.IsNotFound(err) || !strings.Contains(err.Error(), "was not found") {
		t.Errorf("get missing: %v", err)
	}
	inst := &lustre.Instance{Filesystem: "fs", CapacityGib: 9000, Network: "projects/p/global/networks/n"}
	op, err := c.CreateInstance(ctx, parent, "dup", inst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitOperation(ctx, op); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateInstance(ctx, parent, "dup", inst); !gcp.IsAlreadyExists(err) {
		t.Errorf("second create: %v", err)
	}
}

func TestFailedOperation(t *testing.T) {
	f, c := newFakeLustre(t)
	f.failNext = &lustre.Status{Code: 8, Message: "Quota 'lustre capacity' exceeded"}
	op, err := c.CreateInstance(context.Background(), parent, "big",
		&lustre.Instance{Filesystem: "big", CapacityGib: 9000, Network: "projects/p/global/networks/n"})
	if err != nil {
		t.Fatal(err)
	}
	inst, err := c.WaitOperation(context.Background(), op)
	if inst != nil || !gcp.IsQuotaExceeded(err) || !strings.Contains(err.Error(), "lustre capacity") {
		t.Fatalf("inst %v err %v", inst, err)
	}
}

func TestListPagination(t *testing.T) {
	_, c := newFakeLustre(t)
	ctx := context.Background()
	for i := range 5 {
		id := fmt.Sprintf("fs%d", i)
		op, err := c.CreateInstance(ctx, parent, id, &lustre.Instance{Filesystem: id, CapacityGib: 9000, Network: "projects/p/global/networks/n"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.WaitOperation(ctx, op); err != nil {
			t.Fatal(err)
		}
	}
	all, err := c.ListInstances(ctx, parent)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 5 {
		t.Fatalf("listed %d instances over pages of 2, want 5", len(all))
	}
	for i, inst := range all {
		if want := fmt.Sprintf("%s/instances/fs%d", parent, i); inst.Name != want {
			t.Errorf("item %d = %s, want %s", i, inst.Name, want)
		}
	}
	page, err := c.ListInstancesPage(ctx, parent, 3, "")
	if err != nil || len(page.Instances) != 3 || page.NextPageToken != "3" {
		t.Errorf("first page of 3: %+v %v", page, err)
	}
}

func TestWaitHonoursContext(t *testing.T) {
	_, c := newFakeLustre(t)
	c.PollInitial, c.PollMax = time.Hour, time.Hour
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := c.WaitOperation(ctx, &lustre.Operation{Name: parent + "/operations/slow"}); err != context.DeadlineExceeded {
		t.Errorf("err = %v", err)
	}
}

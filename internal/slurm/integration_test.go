package slurm

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// These tests run against Debian's real Slurm 22.05 (REST v0.0.38), started
// by needCluster. They run in file order and share one cluster.

func jwtClient(t *testing.T, c *testCluster) *Client {
	t.Helper()
	return NewClient(Config{BaseURL: c.RESTURL, User: "root", Token: TokenFromScontrol("root", 10*time.Minute)})
}

func TestRealDiscoveryPicksV0038(t *testing.T) {
	c := needCluster(t)
	ctx := testContext(t)
	cl := jwtClient(t, c)
	v, err := cl.APIVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v != "v0.0.38" {
		t.Errorf("APIVersion = %s, want v0.0.38", v)
	}
	offered, err := cl.OfferedVersions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(offered, []string{"v0.0.38", "v0.0.37"}) {
		t.Errorf("OfferedVersions = %v, want [v0.0.38 v0.0.37] (slurmrestd -s openapi/v0.0.38,openapi/v0.0.37)", offered)
	}
}

func TestRealPing(t *testing.T) {
	c := needCluster(t)
	res, err := jwtClient(t, c).Ping(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	if res.APIVersion != "v0.0.38" || !strings.HasPrefix(res.SlurmRelease, "22.05") {
		t.Errorf("ping says API %q Slurm %q, want v0.0.38 and 22.05.x", res.APIVersion, res.SlurmRelease)
	}
	if len(res.Controllers) != 1 || !res.Controllers[0].Responding || res.Controllers[0].Hostname != c.Hostname {
		t.Errorf("controllers = %+v, want one responding on %s", res.Controllers, c.Hostname)
	}
}

// waitJob polls a job until it is done and returns every state it saw.
func waitJob(ctx context.Context, t *testing.T, cl *Client, id int) (*Job, []string) {
	t.Helper()
	var seen []string
	for {
		j, err := cl.GetJob(ctx, id)
		if err != nil {
			t.Fatalf("GetJob(%d): %v", id, err)
		}
		if len(seen) == 0 || seen[len(seen)-1] != j.State {
			seen = append(seen, j.State)
			t.Logf("job %d %s at %s (flags %v, reason %s)", id, j.State, time.Now().Format("15:04:05.000"), j.Flags, j.Reason)
		}
		if j.Done() {
			return j, seen
		}
		select {
		case <-ctx.Done():
			t.Fatalf("job %d not done: states %v", id, seen)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func TestRealSubmitJobRunsToCompletion(t *testing.T) {
	c := needCluster(t)
	ctx := testContext(t)
	cl := jwtClient(t, c)
	out := filepath.Join(c.Dir, "out", "hello-%j.out")
	id, err := cl.SubmitJob(ctx, JobSpec{
		Name:         "hello",
		Partition:    testPartition,
		Script:       "#!/bin/bash\nhostname\necho \"greeting=$GREETING\"\nsleep 1\n",
		Nodes:        1,
		TasksPerNode: 1,
		TimeLimit:    90 * time.Second, // rounds up to 2 minutes
		WorkDir:      filepath.Join(c.Dir, "out"),
		StdOut:       out,
		Env:          map[string]string{"PATH": DefaultPath, "GREETING": "hi from the REST client"},
		Requeue:      true,
		Signal:       "USR1@30",
	})
	if err != nil {
		t.Fatal(err)
	}
	j, seen := waitJob(ctx, t, cl, id)
	if !slices.Contains(seen, JobRunning) {
		t.Errorf("states seen %v, want RUNNING on the way", seen)
	}
	if j.State != JobCompleted || j.ExitCode != 0 || j.ExitSignal != 0 {
		t.Errorf("job ended %s exit %d signal %d, want COMPLETED 0 0 (flags %v, reason %s)",
			j.State, j.ExitCode, j.ExitSignal, j.Flags, j.Reason)
	}
	if j.Name != "hello" || j.Partition != testPartition || j.Nodes != testNode {
		t.Errorf("job = %+v, want name hello on %s/%s", j, testPartition, testNode)
	}
	if j.TimeLimit != 2*time.Minute {
		t.Errorf("TimeLimit = %s, want 2m0s", j.TimeLimit)
	}
	if j.StartTime.IsZero() || j.EndTime.Before(j.StartTime) || j.SubmitTime.After(j.StartTime) {
		t.Errorf("times submit %s start %s end %s out of order", j.SubmitTime, j.StartTime, j.EndTime)
	}
	data, err := os.ReadFile(strings.ReplaceAll(out, "%j", strconv.Itoa(id)))
	if err != nil {
		t.Fatal(err)
	}
	want := c.Hostname + "\ngreeting=hi from the REST client\n"
	if string(data) != want {
		t.Errorf("job output = %q, want %q", data, want)
	}
}

func TestRealSubmitFailingJobReportsExitCode(t *testing.T) {
	c := needCluster(t)
	ctx := testContext(t)
	cl := jwtClient(t, c)
	id, err := cl.SubmitJob(ctx, JobSpec{Name: "fails", Script: "#!/bin/sh\nexit 3\n", WorkDir: filepath.Join(c.Dir, "out")})
	if err != nil {
		t.Fatal(err)
	}
	j, _ := waitJob(ctx, t, cl, id)
	if j.State != JobFailed || j.ExitCode != 3 || j.Reason != "NonZeroExitCode" {
		t.Errorf("job ended %s exit %d reason %s, want FAILED 3 NonZeroExitCode", j.State, j.ExitCode, j.Reason)
	}
	if j.Partition != testPartition {
		t.Errorf("job ran in %q, want the default partition %s", j.Partition, testPartition)
	}
}

func TestRealSubmitToBadPartition(t *testing.T) {
	c := needCluster(t)
	_, err := jwtClient(t, c).SubmitJob(testContext(t), JobSpec{Partition: "nosuch", Script: "#!/bin/sh\ntrue\n"})
	if !IsInvalidPartition(err) || ErrorNumber(err) != ErrnoInvalidPartition {
		t.Fatalf("err = %v, want Slurm error 2000", err)
	}
	if !strings.Contains(err.Error(), "Invalid partition name specified") || !strings.Contains(err.Error(), "2000") {
		t.Errorf("error text %q lacks slurmrestd's text and number", err)
	}
	var ae *APIError
	if !errors.As(err, &ae) || ae.HTTPStatus != 500 {
		t.Errorf("err = %#v, want an *APIError with HTTP 500", err)
	}
}

func TestRealBatchOnlySignalUnsupported(t *testing.T) {
	c := needCluster(t)
	_, err := jwtClient(t, c).SubmitJob(testContext(t), JobSpec{Script: "#!/bin/sh\ntrue\n", Signal: "B:USR1@120"})
	if !errors.Is(err, ErrUnsupported) {
		t.Fatalf("err = %v, want ErrUnsupported on v0.0.38", err)
	}
}

func TestRealUnknownJob(t *testing.T) {
	c := needCluster(t)
	ctx := testContext(t)
	cl := jwtClient(t, c)
	_, err := cl.GetJob(ctx, 987654)
	if !IsNotFound(err) || ErrorNumber(err) != ErrnoInvalidJobID {
		t.Fatalf("GetJob(unknown) err = %v, want not found (2017)", err)
	}
	if !strings.Contains(err.Error(), "Invalid job id specified") {
		t.Errorf("error text %q lacks slurmrestd's text", err)
	}
	if err := cl.CancelJob(ctx, 987654); !IsNotFound(err) {
		t.Errorf("CancelJob(unknown) err = %v, want not found", err)
	}
}

func TestRealCancelJob(t *testing.T) {
	c := needCluster(t)
	ctx := testContext(t)
	cl := jwtClient(t, c)
	id, err := cl.SubmitJob(ctx, JobSpec{Name: "sleeper", Script: "#!/bin/sh\nsleep 300\n",
		TimeLimit: 5 * time.Minute, WorkDir: filepath.Join(c.Dir, "out")})
	if err != nil {
		t.Fatal(err)
	}
	if err := waitFor(10*time.Second, "job running", func() bool {
		j, err := cl.GetJob(ctx, id)
		return err == nil && j.State == JobRunning
	}); err != nil {
		t.Fatal(err)
	}
	if err := cl.CancelJob(ctx, id); err != nil {
		t.Fatal(err)
	}
	j, _ := waitJob(ctx, t, cl, id)
	if j.State != JobCancelled {
		t.Errorf("state after cancel = %s, want CANCELLED", j.State)
	}
	if err := cl.CancelJob(ctx, id); err != nil {
		t.Errorf("cancelling an ended job again: %v, want nil", err)
	}
	jobs, err := cl.ListJobs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(jobs, func(j Job) bool { return j.ID == id && j.State == JobCancelled }) {
		t.Errorf("ListJobs lacks cancelled job %d: %+v", id, jobs)
	}
}

func TestRealListNodesAndPartitions(t *testing.T) {
	c := needCluster(t)
	ctx := testContext(t)
	cl := jwtClient(t, c)
	nodes, err := cl.ListNodes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 1 {
		t.Fatalf("nodes = %+v, want only %s", nodes, testNode)
	}
	n := nodes[0]
	if n.Name != testNode || n.State != NodeIdle || n.CPUs != 2 || !slices.Equal(n.Partitions, []string{testPartition}) ||
		n.Hostname != c.Hostname || n.Drained() {
		t.Errorf("node = %+v, want %s IDLE, 2 CPUs, in %s", n, testNode, testPartition)
	}
	parts, err := cl.ListPartitions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := Partition{Name: testPartition, Nodes: testNode, State: "UP", TotalNodes: 1, TotalCPUs: 2}
	if len(parts) != 1 || parts[0] != want {
		t.Errorf("partitions = %+v, want [%+v]", parts, want)
	}
	if _, err := cl.GetNode(ctx, "nosuch"); !IsNotFound(err) || ErrorNumber(err) != ErrnoInvalidNodeName {
		t.Errorf("GetNode(unknown) err = %v, want not found (2018)", err)
	}
}

func TestRealDrainAndResumeNode(t *testing.T) {
	c := needCluster(t)
	ctx := testContext(t)
	cl := jwtClient(t, c)
	err := cl.UpdateNode(ctx, testNode, NodeUpdate{State: "DRAIN", Reason: "rest client test"})
	if !errors.Is(err, ErrUnsupported) {
		t.Fatalf("UpdateNode on v0.0.38: %v, want ErrUnsupported", err)
	}
	// The documented fallback, checked through the REST view of the node.
	if err := UpdateNodeScontrol(ctx, testNode, NodeUpdate{State: "DRAIN", Reason: "rest client test"}); err != nil {
		t.Fatal(err)
	}
	n, err := cl.GetNode(ctx, testNode)
	if err != nil {
		t.Fatal(err)
	}
	if !n.Drained() || n.Reason != "rest client test" || n.State != NodeIdle {
		t.Errorf("after drain node = %+v, want IDLE+DRAIN with the reason", n)
	}
	if err := UpdateNodeScontrol(ctx, testNode, NodeUpdate{State: "RESUME"}); err != nil {
		t.Fatal(err)
	}
	n, err = cl.GetNode(ctx, testNode)
	if err != nil {
		t.Fatal(err)
	}
	if n.Drained() || n.Reason != "" {
		t.Errorf("after resume node = %+v, want no DRAIN and no reason", n)
	}
}

func TestRealNoTokenIsUnauthorized(t *testing.T) {
	c := needCluster(t)
	ctx := testContext(t)
	// Discovery itself needs credentials on slurmrestd 22.05.
	_, err := NewClient(Config{BaseURL: c.RESTURL}).APIVersion(ctx)
	if !IsUnauthorized(err) {
		t.Errorf("discovery without token: %v, want unauthorized", err)
	}
	_, err = NewClient(Config{BaseURL: c.RESTURL, Version: "v0.0.38"}).ListNodes(ctx)
	var ae *APIError
	if !IsUnauthorized(err) || !errors.As(err, &ae) || ae.HTTPStatus != 401 || ae.Body != "Authentication failure" {
		t.Errorf("ListNodes without token: %#v, want HTTP 401 \"Authentication failure\"", err)
	}
}

func TestRealBadTokenIsAnAPIError(t *testing.T) {
	c := needCluster(t)
	bad := func(context.Context) (string, error) { return "not.a.jwt", nil }
	_, err := NewClient(Config{BaseURL: c.RESTURL, User: "root", Token: bad, Version: "v0.0.38"}).ListNodes(testContext(t))
	// 22.05 answers HTTP 500 "Unspecified error" (-1): see the package comment.
	var ae *APIError
	if !errors.As(err, &ae) || ae.HTTPStatus != 500 || !ae.HasNumber(ErrnoUnspecified) {
		t.Errorf("bad token: %#v, want HTTP 500 with error -1", err)
	}
}

func TestRealUnixSocketLocalAuth(t *testing.T) {
	c := needCluster(t)
	ctx := testContext(t)
	cl := NewClient(Config{BaseURL: "unix://" + c.RESTSocket})
	res, err := cl.Ping(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.APIVersion != "v0.0.38" {
		t.Errorf("API over the socket = %s, want v0.0.38", res.APIVersion)
	}
	parts, err := cl.ListPartitions(ctx)
	if err != nil || len(parts) != 1 || parts[0].Name != testPartition {
		t.Errorf("partitions over the socket = %+v, %v", parts, err)
	}
}

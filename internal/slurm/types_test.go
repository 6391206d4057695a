package slurm

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"
)

func TestNormalizeJobState(t *testing.T) {
	for _, tc := range []struct {
		words []string
		state string
		flags []string
	}{
		{[]string{"RUNNING"}, JobRunning, nil},
		{[]string{"completed"}, JobCompleted, nil},
		{[]string{"COMPLETING"}, JobCompleting, []string{"COMPLETING"}}, // v0.0.38 prints the flag alone
		{[]string{"CANCELLED", "COMPLETING"}, JobCompleting, []string{"COMPLETING"}},
		{[]string{"PENDING", "REQUEUE_HOLD"}, JobRequeued, []string{"REQUEUE_HOLD"}},
		{[]string{"RUNNING", "CONFIGURING", "POWER_UP_NODE"}, JobConfiguring, []string{"CONFIGURING", "POWER_UP_NODE"}},
		{[]string{"FAILED", "UPDATE_DB"}, JobFailed, []string{"UPDATE_DB"}},
		{[]string{"NODE_FAIL"}, JobNodeFail, nil},
		{[]string{"PREEMPTED"}, JobPreempted, nil},
		{nil, "UNKNOWN", nil},
	} {
		state, flags := normalizeJobState(tc.words)
		if state != tc.state || !reflect.DeepEqual(flags, tc.flags) {
			t.Errorf("normalizeJobState(%v) = %s %v, want %s %v", tc.words, state, flags, tc.state, tc.flags)
		}
	}
	if (Job{State: JobCompleting}).Done() || !(Job{State: JobTimeout}).Done() || (Job{State: JobRequeued}).Done() {
		t.Error("Done() wrong for COMPLETING, TIMEOUT or REQUEUED")
	}
}

func TestNormalizeNodeState(t *testing.T) {
	for _, tc := range []struct {
		words []string
		state string
		flags []string
	}{
		{[]string{"idle"}, NodeIdle, nil},
		{[]string{"mixed", "DRAIN"}, NodeMixed, []string{"DRAIN"}},
		{[]string{"IDLE", "CLOUD", "POWERED_DOWN"}, NodeIdle, []string{"CLOUD", "POWERED_DOWN"}},
		{[]string{"DOWN", "NOT_RESPONDING", "NOT_RESPONDING"}, NodeDown, []string{"NOT_RESPONDING"}},
		{[]string{"DRAIN"}, NodeUnknown, []string{"DRAIN"}},
	} {
		state, flags := normalizeNodeState(tc.words)
		if state != tc.state || !reflect.DeepEqual(flags, tc.flags) {
			t.Errorf("normalizeNodeState(%v) = %s %v, want %s %v", tc.words, state, flags, tc.state, tc.flags)
		}
	}
}

func TestParseSignal(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want warnSignal
	}{
		{"B:USR1@120", warnSignal{BatchOnly: true, Name: "USR1", Seconds: 120, spec: "USR1@120"}},
		{"usr2", warnSignal{Name: "USR2", Seconds: 60, spec: "USR2@60"}},
		{"SIGTERM@30", warnSignal{Name: "SIGTERM", Seconds: 30, spec: "SIGTERM@30"}},
		{"RB:10@5", warnSignal{BatchOnly: true, Reservation: true, Name: "10", Seconds: 5, spec: "10@5"}},
	} {
		got, err := parseSignal(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("parseSignal(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "B:", "X:USR1", "USR1@", "USR1@70000", "0@10", "65", "USR 1"} {
		if _, err := parseSignal(bad); err == nil {
			t.Errorf("parseSignal(%q) accepted", bad)
		}
	}
}

func TestNoValDecoding(t *testing.T) {
	for in, want := range map[string]noVal{
		`5`:    {Set: true, Number: 5},
		`null`: {},
		`{"set":true,"infinite":false,"number":1440}`: {Set: true, Number: 1440},
		`{"set":false,"infinite":true,"number":0}`:    {Infinite: true},
		`{"set":false,"infinite":false,"number":7}`:   {},
		`416.0`: {Set: true, Number: 416},
	} {
		var n noVal
		if err := json.Unmarshal([]byte(in), &n); err != nil || n != want {
			t.Errorf("noVal(%s) = %+v, %v; want %+v", in, n, err, want)
		}
	}
	var n noVal
	if err := json.Unmarshal([]byte(`"x"`), &n); err == nil {
		t.Error("noVal accepted a string")
	}
	if minutes(noVal{Set: true, Number: -1}) != 0 || minutes(noVal{Set: true, Number: 0xffffffff}) != 0 ||
		minutes(noVal{Set: true, Number: 90}) != 90*time.Minute {
		t.Error("minutes() does not treat -1 and NO_VAL as unlimited")
	}
}

func TestWaitStatus(t *testing.T) {
	for st, want := range map[int64][2]int{0: {0, 0}, 768: {3, 0}, 15: {0, 15}, 9 | 0x80: {0, 9}, 255 << 8: {255, 0}} {
		if c, s := waitStatus(st); c != want[0] || s != want[1] {
			t.Errorf("waitStatus(%d) = %d %d, want %v", st, c, s, want)
		}
	}
}

func TestAPIErrorTextAndClassification(t *testing.T) {
	e := &APIError{Op: "submit job", Method: "POST", Path: "/slurm/v0.0.38/job/submit", HTTPStatus: 500,
		Errors: []ErrorEntry{{Number: 2000, Error: "Invalid partition name specified"}}}
	want := "slurm: submit job: POST /slurm/v0.0.38/job/submit: HTTP 500: Invalid partition name specified (error 2000)"
	if e.Error() != want {
		t.Errorf("Error() = %q\nwant %q", e.Error(), want)
	}
	wrapped := fmt.Errorf("agent: %w", e)
	if !IsInvalidPartition(wrapped) || ErrorNumber(wrapped) != 2000 || IsNotFound(wrapped) || IsUnauthorized(wrapped) {
		t.Error("classification through wrapping is wrong")
	}
	parse := &APIError{HTTPStatus: 500, Errors: []ErrorEntry{
		{Number: -1, Error: "Invalid SIGNAL specification"}, {Number: 9001, Error: "Failure during parsing"}}}
	if parse.Number() != 9001 {
		t.Errorf("Number() = %d, want 9001 when nothing better is known", parse.Number())
	}
	for _, ae := range []*APIError{
		{HTTPStatus: 401, Body: "Authentication failure"},
		{HTTPStatus: 403},
		{HTTPStatus: 500, Errors: []ErrorEntry{{Number: 1007}}},
		{HTTPStatus: 500, Errors: []ErrorEntry{{Number: 6006}}},
	} {
		if !IsUnauthorized(ae) {
			t.Errorf("IsUnauthorized(%v) = false", ae)
		}
	}
	if IsNotFound(errors.New("x")) || IsUnauthorized(nil) || ErrorNumber(nil) != 0 {
		t.Error("plain errors classified")
	}
	if !IsNotFound(&APIError{HTTPStatus: 404, Errors: []ErrorEntry{{Number: -1, Error: "Unable to find"}}}) ||
		IsNotFound(&APIError{HTTPStatus: 404, Body: "Unable find requested URL."}) {
		t.Error("404 classification: a JSON 404 is not found, an unknown URL is not")
	}
}

// The recorded v0.0.38 error replies use three names for the number.
func TestRecordedErrorReplies(t *testing.T) {
	for file, want := range map[string]ErrorEntry{
		"v0.0.38/error_unknown_job.json":   {Number: 2017, Error: "Invalid job id specified", Description: "Unable to find JobId=99999", Source: "slurm_load_job"},
		"v0.0.38/error_bad_partition.json": {Number: 2000, Error: "Invalid partition name specified"},
		"v0.0.38/error_unknown_node.json":  {Number: 2018, Error: "Invalid node name specified"},
		"v0.0.41/error_unknown_job.json":   {Number: 2017, Error: "Invalid job id specified", Description: "Unable to query JobId=999999", Source: "_handle_job_get"},
	} {
		err := checkReply("op", "GET", "/p", reply{status: 500, body: readTestdata(t, file)})
		var ae *APIError
		if !errors.As(err, &ae) || len(ae.Errors) != 1 || ae.Errors[0] != want {
			t.Errorf("%s: %#v, want %+v", file, err, want)
		}
	}
	// Success replies carry an empty errors list.
	for _, file := range []string{"v0.0.38/cancel.json", "v0.0.38/submit.json", "v0.0.41/submit.json"} {
		if err := checkReply("op", "GET", "/p", reply{status: 200, body: readTestdata(t, file)}); err != nil {
			t.Errorf("%s: %v", file, err)
		}
	}
	if err := checkReply("op", "GET", "/p", reply{status: 200, body: []byte("<html>")}); err == nil {
		t.Error("a non-JSON 200 reply passed")
	}
}

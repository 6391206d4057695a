package psatest

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"google.golang.org/api/googleapi"
)

// Zone and Parent are where the storage API tests create instances.
const (
	Zone   = "us-central1-a"
	Parent = "projects/" + Project + "/locations/" + Zone
)

// HTTPError is an AIP-style error answer as a test checks it: HTTP code, google.rpc status name, message.
type HTTPError struct {
	Code            int
	Status, Message string
}

// APIError reads a client error's HTTP answer; an error that is not an API answer fails the test.
func APIError(t testing.TB, err error) HTTPError {
	t.Helper()
	var ge *googleapi.Error
	if !errors.As(err, &ge) {
		t.Fatalf("error %v (%T) is not an API error", err, err)
	}
	var body struct {
		Error struct{ Status, Message string } `json:"error"`
	}
	_ = json.Unmarshal([]byte(ge.Body), &body)
	return HTTPError{Code: ge.Code, Status: body.Error.Status, Message: body.Error.Message}
}

// WantRefused checks that what was refused synchronously with a 400 of google.rpc status (INVALID_ARGUMENT,
// FAILED_PRECONDITION, ...) whose message names field.
func WantRefused(t testing.TB, err error, what, status, field string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s was accepted", what)
		return
	}
	if he := APIError(t, err); he.Code != 400 || he.Status != status || !strings.Contains(he.Message, field) {
		t.Errorf("%s: %+v, want 400 %s naming %q", what, he, status, field)
	}
}

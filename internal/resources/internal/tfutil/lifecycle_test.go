package tfutil

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/api/googleapi"
)

var (
	errNotFound      = &googleapi.Error{Code: http.StatusNotFound, Message: "not found"}
	errAlreadyExists = &googleapi.Error{Code: http.StatusConflict, Message: "exists", Errors: []googleapi.ErrorItem{{Reason: "alreadyExists"}}}
)

type fakeInstance struct{ state string }

func TestDeleteAndWait(t *testing.T) {
	ctx := context.Background()
	deleting := func(i fakeInstance) bool { return i.state == "DELETING" }
	// Gone already: a resent delete whose first answer was lost.
	if err := DeleteAndWait(ctx, func(context.Context) error { return errNotFound },
		func(context.Context) (fakeInstance, error) { return fakeInstance{}, errNotFound }, deleting); err != nil {
		t.Errorf("already gone: %v", err)
	}
	// Still being deleted by the first call: waited out.
	gets := 0
	err := DeleteAndWait(ctx, func(context.Context) error { return errors.New("operation already in progress") },
		func(context.Context) (fakeInstance, error) {
			if gets++; gets > 2 {
				return fakeInstance{}, errNotFound
			}
			return fakeInstance{state: "DELETING"}, nil
		}, deleting)
	if err != nil || gets != 3 {
		t.Errorf("deleting: %v after %d gets", err, gets)
	}
	// A real failure on an instance that is not being deleted is reported.
	err = DeleteAndWait(ctx, func(context.Context) error { return errors.New("boom") },
		func(context.Context) (fakeInstance, error) { return fakeInstance{state: "READY"}, nil }, deleting)
	if err == nil || err.Error() != "boom" {
		t.Errorf("failure: %v", err)
	}
}

func TestAdoptExisting(t *testing.T) {
	ctx := context.Background()
	get := func(context.Context) (fakeInstance, error) { return fakeInstance{state: "READY"}, nil }
	wait := func(context.Context) (fakeInstance, error) { return fakeInstance{state: "ADOPTED"}, nil }
	same := func(fakeInstance) string { return "" }
	got, err := AdoptExisting(ctx, errAlreadyExists, "Filestore instance", "projects/p/locations/z/instances/home", get, same, wait)
	if err != nil || got.state != "ADOPTED" {
		t.Errorf("adopt: %v %v", got, err)
	}
	_, err = AdoptExisting(ctx, errAlreadyExists, "Filestore instance", "projects/p/locations/z/instances/home", get,
		func(fakeInstance) string { return "share.capacity_gb" }, wait)
	if err == nil || !strings.Contains(err.Error(), "Filestore instance projects/p/locations/z/instances/home already exists and differs from this configuration in share.capacity_gb; import it") {
		t.Errorf("differs: %v", err)
	}
	other := errors.New("quota")
	if _, err = AdoptExisting(ctx, other, "x", "y", get, same, wait); err != other {
		t.Errorf("other error: %v", err)
	}
}

func TestWaitCreated(t *testing.T) {
	ctx := context.Background()
	n := 0
	got, err := WaitCreated(ctx, "Managed Lustre instance i", func(context.Context) (fakeInstance, error) {
		n++
		if n < 2 {
			return fakeInstance{state: "CREATING"}, nil
		}
		return fakeInstance{state: "ACTIVE"}, nil
	}, func(i fakeInstance) (bool, error) { return i.state == "ACTIVE", nil })
	if err != nil || got.state != "ACTIVE" {
		t.Errorf("WaitCreated = %v, %v", got, err)
	}
	_, err = WaitCreated(ctx, "Managed Lustre instance i", func(context.Context) (fakeInstance, error) { return fakeInstance{}, errNotFound },
		func(fakeInstance) (bool, error) { return true, nil })
	if err == nil || err.Error() != "Managed Lustre instance i disappeared while being created: its create operation failed" {
		t.Errorf("gone: %v", err)
	}
}

func TestPollStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	err := Poll(ctx, func() (bool, error) { return false, nil })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Poll = %v", err)
	}
}

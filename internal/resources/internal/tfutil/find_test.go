package tfutil_test

import (
	"errors"
	"net/http"
	"testing"

	"google.golang.org/api/googleapi"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

func TestLookupTypesNotFound(t *testing.T) {
	missing := &googleapi.Error{Code: http.StatusNotFound, Message: "The resource 'hc-controller' was not found"}
	_, err := tfutil.Lookup("VM", "hc-controller", 1, missing)
	if !tfutil.IsNotFound(err) || !gcp.IsNotFound(err) || gcp.IgnoreNotFound(err) != nil {
		t.Fatalf("a 404 must be a typed not-found that gcp still recognizes: %v", err)
	}
	if err.Error() != "VM hc-controller does not exist" {
		t.Errorf("error = %q", err)
	}

	denied := &googleapi.Error{Code: http.StatusForbidden, Message: "denied"}
	_, err = tfutil.Lookup("VM", "hc-controller", 1, denied)
	var apiErr *gcp.APIError
	if tfutil.IsNotFound(err) || !errors.As(err, &apiErr) || !gcp.IsPermissionDenied(err) {
		t.Errorf("other errors stay classified API errors: %v", err)
	}
	if v, err := tfutil.Lookup("VM", "hc-controller", 7, nil); v != 7 || err != nil {
		t.Errorf("found = %v, %v", v, err)
	}
}

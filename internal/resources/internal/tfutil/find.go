package tfutil

import (
	"errors"
	"fmt"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
)

// NotFoundError is a find's answer for an object that does not exist. Each resource package
// reads its API objects through small find functions (find.go) that decide "not found" right at
// the call, so callers test one typed error instead of classifying API errors themselves. It still
// matches gcp.ErrNotFound, so a caller may ignore it the usual way (gcp.IgnoreNotFound).
type NotFoundError struct {
	// Kind and Name say what was looked for ("VM", "hc-controller").
	Kind, Name string
	cause      error
}

func (e *NotFoundError) Error() string { return fmt.Sprintf("%s %s does not exist", e.Kind, e.Name) }

func (e *NotFoundError) Unwrap() error { return e.cause }

// IsNotFound reports whether a find said its object does not exist.
func IsNotFound(err error) bool {
	var nf *NotFoundError
	return errors.As(err, &nf)
}

// Lookup finishes a find: the API's answer to reading kind name, with its error classified and a
// missing object turned into a *NotFoundError.
func Lookup[T any](kind, name string, v T, err error) (T, error) {
	if err == nil {
		return v, nil
	}
	var zero T
	if err = gcp.Classify(err); gcp.IsNotFound(err) {
		return zero, &NotFoundError{Kind: kind, Name: name, cause: err}
	}
	return zero, err
}

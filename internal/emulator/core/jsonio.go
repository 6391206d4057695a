package core

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// maxBody bounds request bodies; the largest real payloads (bulkInsert with per-instance properties, metadata at
// its 512 KB limit) stay well below it.
const maxBody = 32 << 20

// WriteJSON answers status with v encoded as JSON: protojson for proto messages (the clients' wire format),
// raw bytes for json.RawMessage, encoding/json otherwise.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	var b []byte
	var err error
	switch m := v.(type) {
	case json.RawMessage:
		b = m
	case proto.Message:
		b, err = protojson.Marshal(m)
	default:
		b, err = json.Marshal(v)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// WriteError answers err in the format of the API the request belongs to (see Route.Method). Errors that are not
// *APIError become 500s.
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	var ae *APIError
	if !errors.As(err, &ae) {
		var oe *OpError
		if errors.As(err, &oe) {
			ae = &APIError{Code: oe.HTTPStatus, Reason: opCodeForStatus(oe.HTTPStatus), Message: oe.Errors[0].GetMessage()}
		} else {
			ae = Internal(err.Error())
		}
	}
	if computeStyle(r) {
		WriteJSON(w, ae.Code, ae.ComputeBody())
	} else {
		WriteJSON(w, ae.Code, ae.GoogleBody())
	}
}

// computeStyle: Compute and Cloud Storage answer errors with errors[] (domain, reason); the other APIs with
// google.rpc status details.
func computeStyle(r *http.Request) bool {
	if m := MethodOf(r); m != "" {
		return strings.HasPrefix(m, "compute.") || strings.HasPrefix(m, "storage.")
	}
	return strings.HasPrefix(r.URL.Path, "/compute/") || strings.HasPrefix(r.URL.Path, "/storage/")
}

// ReadJSON decodes the request body into v. Proto messages are decoded with protojson and reject unknown
// fields, like Google's front ends ("Invalid JSON payload received. Unknown name ..."); an empty body leaves v
// empty. The returned error is a ready-to-write 400.
func ReadJSON(r *http.Request, v any) *APIError {
	b, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		return &APIError{Code: 400, Reason: "parseError", Message: "Could not read request body: " + err.Error()}
	}
	if len(strings.TrimSpace(string(b))) == 0 {
		return nil
	}
	switch m := v.(type) {
	case proto.Message:
		err = protojson.UnmarshalOptions{}.Unmarshal(b, m)
	case *json.RawMessage:
		if !json.Valid(b) {
			err = fmt.Errorf("not valid JSON")
		}
		*m = b
	default:
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		return &APIError{Code: 400, Reason: "parseError", Message: "Invalid JSON payload received. " + err.Error()}
	}
	return nil
}

// ReadJSONBytes decodes b like ReadJSON decodes a request body.
func ReadJSONBytes(b []byte, v any) *APIError {
	var err error
	if m, ok := v.(proto.Message); ok {
		err = protojson.UnmarshalOptions{}.Unmarshal(b, m)
	} else {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		return &APIError{Code: 400, Reason: "parseError", Message: "Invalid JSON payload received. " + err.Error()}
	}
	return nil
}

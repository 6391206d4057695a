package servicenetworking

import (
	"encoding/json"
	"net/http"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// wireOperation is a google.longrunning.Operation as Service Networking sends it: proto3 JSON, so "done" is
// left out until it is true (a running operation is {"name":"operations/..."}); clients that compare the
// answer's fields, or test for the key, see what the real API sends.
type wireOperation struct {
	Name     string          `json:"name"`
	Metadata json.RawMessage `json:"metadata,omitempty"`
	Done     bool            `json:"done,omitempty"`
	Error    *core.RPCStatus `json:"error,omitempty"`
	Response json.RawMessage `json:"response,omitempty"`
}

func writeOperation(w http.ResponseWriter, l *core.LRO) {
	core.WriteJSON(w, http.StatusOK, wireOperation{Name: l.Name, Metadata: l.Metadata, Done: l.Done, Error: l.Error, Response: l.Response})
}

package lustre

import (
	"encoding/json"
	"net/http"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	wire "github.com/hypercompute/terraform-provider-hypercompute/internal/gcp/lustre"
)

func (s *Service) getOperation(w http.ResponseWriter, r *http.Request) {
	name := parent(r) + "/operations/" + r.PathValue("operation")
	l, ok := s.Ops.GetLRO(name)
	if !ok {
		fail(w, r, core.GoogleNotFound(name))
		return
	}
	core.WriteJSON(w, http.StatusOK, l)
}

// listOperations answers the Lustre operations of a location ("-": every location of the project). The LRO
// store is shared with Filestore, whose operation names look the same; the metadata type tells them apart.
func (s *Service) listOperations(w http.ResponseWriter, r *http.Request) {
	prefix := parent(r) + "/operations/"
	if r.PathValue("location") == "-" {
		prefix = "projects/" + r.PathValue("project") + "/locations/"
	}
	var recs []core.Record
	for _, rec := range s.Store.List(core.KindLROs, prefix) {
		var probe struct {
			Metadata json.RawMessage `json:"metadata"`
		}
		if json.Unmarshal(rec.JSON, &probe) == nil && wire.AnyTypeURL(probe.Metadata) == wire.OperationMetadataTypeURL {
			recs = append(recs, rec)
		}
	}
	items, next, err := core.Page(r, recs)
	if err != nil {
		fail(w, r, err)
		return
	}
	body := map[string]any{}
	if len(items) > 0 {
		body["operations"] = items
	}
	if next != "" {
		body["nextPageToken"] = next
	}
	core.WriteJSON(w, http.StatusOK, body)
}

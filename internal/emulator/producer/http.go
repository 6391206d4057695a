// Package producer holds what the emulated producer APIs behind private service access (Filestore,
// Managed Lustre) share apart from their wire types: request names, error answers, the read handlers of
// instances and operations, the create/patch/delete lifecycle of an instance and its backing directory.
// Each API package keeps its wire types, validation and field names.
package producer

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// Fail writes err as the API's error answer.
func Fail(w http.ResponseWriter, r *http.Request, err error) { core.WriteError(w, r, err) }

// Parent is the location a request addresses: projects/{project}/locations/{location}.
func Parent(r *http.Request) string {
	return "projects/" + r.PathValue("project") + "/locations/" + r.PathValue("location")
}

// InstanceName is the instance a request addresses.
func InstanceName(r *http.Request) string { return Parent(r) + "/instances/" + r.PathValue("instance") }

// BadRequest is the synchronous INVALID_ARGUMENT answer (HTTP 400).
func BadRequest(format string, args ...any) *core.APIError {
	return core.GoogleError(http.StatusBadRequest, format, args...)
}

// FailedPrecondition is the synchronous FAILED_PRECONDITION answer (HTTP 400, as Google's front ends map it).
func FailedPrecondition(format string, args ...any) *core.APIError {
	e := core.GoogleError(http.StatusBadRequest, format, args...)
	e.Status = "FAILED_PRECONDITION"
	return e
}

// NameParts returns the project and location of projects/{p}/locations/{l}/...
func NameParts(name string) (project, location string) {
	parts := strings.Split(name, "/")
	if len(parts) >= 4 {
		return parts[1], parts[3]
	}
	return "", ""
}

// listPrefix is the store prefix a list call covers: the request's location, or with location "-" every
// location of the project.
func listPrefix(r *http.Request, collection string) string {
	if r.PathValue("location") == "-" {
		return "projects/" + r.PathValue("project") + "/locations/"
	}
	return Parent(r) + "/" + collection + "/"
}

// writePage answers one page of recs under the list field (omitted when empty, like the real APIs).
func writePage(w http.ResponseWriter, r *http.Request, field string, recs []core.Record) {
	items, next, err := core.Page(r, recs)
	if err != nil {
		Fail(w, r, err)
		return
	}
	body := map[string]any{}
	if len(items) > 0 {
		body[field] = items
	}
	if next != "" {
		body["nextPageToken"] = next
	}
	core.WriteJSON(w, http.StatusOK, body)
}

// GetOperation serves operations.get.
func GetOperation(srv *core.Server) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		name := Parent(r) + "/operations/" + r.PathValue("operation")
		l, ok := srv.Ops.GetLRO(name)
		if !ok {
			Fail(w, r, core.GoogleNotFound(name))
			return
		}
		core.WriteJSON(w, http.StatusOK, l)
	}
}

// ListOperations serves operations.list with the operations whose metadata has type metadataTypeURL. The
// producer APIs share one LRO store and their operation names look the same; the metadata type tells them
// apart.
func ListOperations(srv *core.Server, metadataTypeURL string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var recs []core.Record
		for _, rec := range srv.Store.List(core.KindLROs, listPrefix(r, "operations")) {
			var probe struct {
				Metadata struct {
					Type string `json:"@type"`
				} `json:"metadata"`
			}
			if json.Unmarshal(rec.JSON, &probe) == nil && probe.Metadata.Type == metadataTypeURL {
				recs = append(recs, rec)
			}
		}
		writePage(w, r, "operations", recs)
	}
}

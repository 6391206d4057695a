package core

import (
	"encoding/json"
	"net/http"
	"strings"
)

// WriteAggregated answers a Compute aggregatedList (instances, disks, subnetworks, operations, ...): the
// page's records grouped under items["zones/Z" | "regions/R" | "global"][field]; with includeAllScopes (the
// default) every scope in scopes without results carries Compute's NO_RESULTS_ON_PAGE warning.
func WriteAggregated(w http.ResponseWriter, r *http.Request, listKind, field string, recs []Record, scopes []string) {
	page, next, err := Page(r, recs)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	grouped := map[string][]json.RawMessage{}
	for _, it := range page {
		var probe struct {
			SelfLink string `json:"selfLink"`
		}
		_ = json.Unmarshal(it, &probe)
		sc := ScopeOf(probe.SelfLink)
		grouped[sc] = append(grouped[sc], it)
	}
	byScope := map[string]any{}
	for sc, l := range grouped {
		byScope[sc] = map[string]any{field: l}
	}
	if r.URL.Query().Get("includeAllScopes") != "false" {
		for _, sc := range scopes {
			if _, has := grouped[sc]; !has {
				byScope[sc] = map[string]any{"warning": map[string]any{
					"code":    "NO_RESULTS_ON_PAGE",
					"message": "There are no results for scope '" + sc + "' on this page.",
					"data":    []any{map[string]string{"key": "scope", "value": sc}},
				}}
			}
		}
	}
	id := "projects/" + r.PathValue("project") + "/aggregated/" + field
	body := map[string]any{"kind": listKind, "id": id, "items": byScope, "selfLink": SelfLink(id)}
	if next != "" {
		body["nextPageToken"] = next
	}
	WriteJSON(w, http.StatusOK, body)
}

// ScopeOf is the aggregatedList scope of a resource's selfLink or key: "zones/Z", "regions/R" or "global".
func ScopeOf(ref string) string {
	parts := strings.Split(RelativePath(ref), "/")
	if len(parts) >= 4 && (parts[2] == "zones" || parts[2] == "regions") {
		return parts[2] + "/" + parts[3]
	}
	return "global"
}

// ResolveRef turns a reference to a resource of collection ("networks") given as a full URL, a partial path
// ("projects/p/global/networks/n", "global/networks/n") or a bare name into its relative path, assuming the
// caller's project and scope ("global", "regions/R", "zones/Z") for the partial forms.
func ResolveRef(project, scope, collection, ref string) string {
	rel := RelativePath(ref)
	switch {
	case strings.HasPrefix(rel, "projects/"):
		return rel
	case strings.HasPrefix(rel, "global/"), strings.HasPrefix(rel, "regions/"), strings.HasPrefix(rel, "zones/"):
		return "projects/" + project + "/" + rel
	case !strings.Contains(rel, "/"):
		return "projects/" + project + "/" + scope + "/" + collection + "/" + rel
	}
	return rel
}

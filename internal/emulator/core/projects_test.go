package core

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestProjectNumbersInPaths: projects/<number> reaches the routes as projects/<id>, whether the id was seen
// in an earlier request or only in stored keys (a state file loaded at start); unknown numbers stay numbers.
func TestProjectNumbersInPaths(t *testing.T) {
	s := NewServer(Options{})
	s.Router.Handle("GET /x/projects/{project}/o/{obj}", "x.get", Read, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.PathValue("project")+" "+r.PathValue("obj")+" "+r.URL.Query().Get("project"))
	})
	get := func(path string) string {
		rec := httptest.NewRecorder()
		s.Router.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		return rec.Body.String()
	}
	if err := s.Store.Put("compute.networks", "projects/stored-proj/global/networks/n", map[string]string{"name": "n"}); err != nil {
		t.Fatal(err)
	}
	if got := get("/x/projects/" + ProjectNumber("stored-proj") + "/o/a"); got != "stored-proj a " {
		t.Errorf("number of a stored project: %q", got)
	}
	get("/x/projects/seen-proj/o/a")
	if got := get("/x/projects/" + ProjectNumber("seen-proj") + "/o/a%2Fb?project=" + ProjectNumber("seen-proj")); got != "seen-proj a/b seen-proj" {
		t.Errorf("number of a project seen before, escaped object name: %q", got)
	}
	if got := get("/x/projects/123456789012/o/a"); got != "123456789012 a " {
		t.Errorf("unknown number: %q", got)
	}
	// A number asked for before its project had anything stored resolves once the store holds something of it.
	later := ProjectNumber("later-proj")
	if got := get("/x/projects/" + later + "/o/a"); got != later+" a " {
		t.Errorf("number of a project not yet known: %q", got)
	}
	if err := s.Store.Put("compute.networks", "projects/later-proj/global/networks/n", map[string]string{"name": "n"}); err != nil {
		t.Fatal(err)
	}
	if got := get("/x/projects/" + later + "/o/a"); got != "later-proj a " {
		t.Errorf("number of a project stored later: %q", got)
	}
	if got := s.ProjectID(ProjectNumber("seen-proj")); got != "seen-proj" {
		t.Errorf("ProjectID = %q", got)
	}
}

package core

import (
	"net/http"
	"strings"
	"sync"
)

// projectIDs maps the emulator's project numbers (ProjectNumber) back to project ids, so that every API
// answers "projects/<number>/..." as it answers "projects/<id>/..." — real Google APIs accept both, and clients
// use the number where another API handed it to them (Service Networking names the consumer network
// projects/<number>/global/networks/N, and Terraform's google provider removes that peering by the number).
//
// Projects exist implicitly, so the ids known are those seen in request paths and in stored resource keys.
type projectIDs struct {
	store    *Store
	mu       sync.Mutex
	byNumber map[string]string
	// scanned is the store version last looked through, so a number nobody has costs one scan per change,
	// not one per request.
	scanned uint64
}

func newProjectIDs(store *Store) *projectIDs {
	return &projectIDs{store: store, byNumber: map[string]string{}, scanned: ^uint64(0)}
}

func (p *projectIDs) note(id string) {
	if id == "" || isProjectNumber(id) {
		return
	}
	num := ProjectNumber(id)
	p.mu.Lock()
	if _, ok := p.byNumber[num]; !ok {
		p.byNumber[num] = id
	}
	p.mu.Unlock()
}

// resolve returns the id whose number is num; ok is false for a number no known project has.
func (p *projectIDs) resolve(num string) (string, bool) {
	p.mu.Lock()
	id, ok := p.byNumber[num]
	p.mu.Unlock()
	if ok {
		return id, true
	}
	// Not seen in a request since start: look through what the store holds (e.g. after a snapshot load).
	v := p.store.Version()
	p.mu.Lock()
	fresh := v != p.scanned
	p.scanned = v
	p.mu.Unlock()
	if !fresh {
		return "", false
	}
	for _, kind := range p.store.Kinds() {
		for _, rec := range p.store.List(kind, "projects/") {
			if rest, ok := strings.CutPrefix(rec.Key, "projects/"); ok {
				p.note(strings.SplitN(rest, "/", 2)[0])
			}
		}
	}
	p.mu.Lock()
	id, ok = p.byNumber[num]
	p.mu.Unlock()
	return id, ok
}

// ProjectID returns the project id a path's project segment names: the id itself, or the id whose emulated
// number it is; an unknown number is returned unchanged.
func (s *Server) ProjectID(idOrNumber string) string {
	if !isProjectNumber(idOrNumber) {
		return idOrNumber
	}
	if id, ok := s.Router.projects.resolve(idOrNumber); ok {
		return id
	}
	return idOrNumber
}

// canonicalProjects rewrites "projects/<number>" path segments and a numeric "project" query parameter (Cloud
// Storage's bucket list and insert) to the project id, and notes every project id the request names.
func (p *projectIDs) canonicalProjects(r *http.Request) *http.Request {
	path, changed := p.rewritePath(r.URL.Path)
	rawPath := r.URL.RawPath
	if changed && rawPath != "" {
		// An escaped path (a Cloud Storage object name with %2F) keeps its escapes; numbers have none.
		rawPath, _ = p.rewritePath(rawPath)
	}
	q := r.URL.Query()
	qp := q.Get("project")
	qChanged := false
	if isProjectNumber(qp) {
		if id, ok := p.resolve(qp); ok {
			q.Set("project", id)
			qChanged = true
		}
	} else {
		p.note(qp)
	}
	if !changed && !qChanged {
		return r
	}
	r2 := *r
	u := *r.URL
	if changed {
		u.Path, u.RawPath = path, rawPath
	}
	if qChanged {
		u.RawQuery = q.Encode()
	}
	r2.URL = &u
	return &r2
}

func (p *projectIDs) rewritePath(path string) (string, bool) {
	segs := strings.Split(path, "/")
	changed := false
	for i := 0; i+1 < len(segs); i++ {
		if segs[i] != "projects" {
			continue
		}
		if !isProjectNumber(segs[i+1]) {
			p.note(segs[i+1])
			continue
		}
		if id, ok := p.resolve(segs[i+1]); ok {
			segs[i+1] = id
			changed = true
		}
	}
	return strings.Join(segs, "/"), changed
}

func isProjectNumber(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

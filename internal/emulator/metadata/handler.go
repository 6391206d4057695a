package metadata

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
)

const v1 = "/computeMetadata/v1"

// answer is a rendered response.
type answer struct {
	code  int
	ctype string
	body  string
}

func (a answer) etag() string {
	sum := sha256.Sum256([]byte(a.body))
	return hex.EncodeToString(sum[:8])
}

func writeText(w http.ResponseWriter, code int, body string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	_, _ = io.WriteString(w, body)
}

func (a answer) write(w http.ResponseWriter, withETag bool) {
	if withETag && a.code == http.StatusOK {
		w.Header().Set("ETag", a.etag())
	}
	w.Header().Set("Content-Type", a.ctype)
	w.WriteHeader(a.code)
	_, _ = io.WriteString(w, a.body)
}

func notFound() answer {
	return answer{code: http.StatusNotFound, ctype: "text/plain; charset=utf-8", body: "404 page not found\n"}
}

// serve answers one metadata request for the VM at key, as the real server does: every answer carries
// "Metadata-Flavor: Google"; requests without that header (or forwarded by a proxy) are refused with 403.
func (m *Server) serve(w http.ResponseWriter, r *http.Request, key string) {
	h := w.Header()
	h.Set("Metadata-Flavor", "Google")
	h.Set("Server", "Metadata Server for VM")
	h.Set("X-Frame-Options", "SAMEORIGIN")
	h.Set("X-XSS-Protection", "0")
	path := r.URL.Path
	if path == "/" || path == "" {
		writeText(w, http.StatusOK, "computeMetadata/\n")
		return
	}
	if path != v1 && !strings.HasPrefix(path, v1+"/") {
		notFound().write(w, false)
		return
	}
	if r.Header.Get("X-Forwarded-For") != "" {
		writeText(w, http.StatusForbidden, "Your client does not have permission to get URL "+path+" from this server. Requests with X-Forwarded-For are refused.\n")
		return
	}
	if r.Header.Get("Metadata-Flavor") != "Google" {
		writeText(w, http.StatusForbidden, "Your client does not have permission to get URL "+path+" from this server. Missing Metadata-Flavor:Google header.\n")
		return
	}
	rest := strings.TrimPrefix(strings.TrimPrefix(path, v1), "/")
	trailing := rest == "" || strings.HasSuffix(rest, "/")
	var segs []string
	if t := strings.Trim(rest, "/"); t != "" {
		segs = strings.Split(t, "/")
	}
	guest := len(segs) >= 2 && segs[0] == "instance" && segs[1] == "guest-attributes"
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	case http.MethodPut, http.MethodDelete:
		if guest && len(segs) == 4 && !trailing {
			m.writeGuestAttribute(w, r, key, segs[2], segs[3])
			return
		}
		writeText(w, http.StatusMethodNotAllowed, "Method not allowed\n")
		return
	default:
		writeText(w, http.StatusMethodNotAllowed, "Method not allowed\n")
		return
	}
	if guest {
		inst, ok := m.inst.Instance(key)
		if !ok {
			notFound().write(w, false)
			return
		}
		if !m.inst.GuestAttributesEnabled(key, inst) {
			writeText(w, http.StatusForbidden, "Guest attributes endpoint access is disabled.\n")
			return
		}
	}
	if len(segs) == 4 && segs[0] == "instance" && segs[1] == "service-accounts" && !trailing {
		switch segs[3] {
		case "token":
			m.token(w, r, key, segs[2])
			return
		case "identity":
			m.identity(w, r, key, segs[2])
			return
		}
	}
	q := r.URL.Query()
	if q.Get("wait_for_change") == "true" {
		m.waitForChange(w, r, key, segs, trailing)
		return
	}
	m.render(key, segs, trailing, q.Get("recursive") == "true", q.Get("alt")).write(w, true)
}

// render produces the answer for a path of the VM's tree.
func (m *Server) render(key string, segs []string, trailing, recursive bool, alt string) answer {
	root, ok := m.root(key)
	if !ok {
		return notFound()
	}
	n, ok := lookup(root, segs)
	if !ok {
		return notFound()
	}
	d, isDir := n.(*dir)
	if !isDir {
		if trailing && len(segs) > 0 {
			return notFound()
		}
		if alt == "json" {
			b, _ := json.Marshal(jsonValue(n))
			return answer{code: http.StatusOK, ctype: "application/json", body: string(b)}
		}
		return answer{code: http.StatusOK, ctype: "application/text", body: text(n)}
	}
	if recursive {
		if alt == "text" {
			var b strings.Builder
			flatText("", d, &b)
			return answer{code: http.StatusOK, ctype: "application/text", body: b.String()}
		}
		b, _ := json.Marshal(jsonValue(d))
		return answer{code: http.StatusOK, ctype: "application/json", body: string(b)}
	}
	entries := listing(d)
	if alt == "json" {
		b, _ := json.Marshal(nonNil(entries))
		return answer{code: http.StatusOK, ctype: "application/json", body: string(b)}
	}
	body := ""
	if len(entries) > 0 {
		body = strings.Join(entries, "\n") + "\n"
	}
	return answer{code: http.StatusOK, ctype: "application/text", body: body}
}

// waitForChange holds the request until the answer's ETag differs from last_etag (or, without one, until it
// changes), timeout_sec passes, or the client goes away. A last_etag that already differs answers at once.
func (m *Server) waitForChange(w http.ResponseWriter, r *http.Request, key string, segs []string, trailing bool) {
	q := r.URL.Query()
	recursive, alt := q.Get("recursive") == "true", q.Get("alt")
	baseline := q.Get("last_etag")
	var deadline <-chan time.Time
	if s := q.Get("timeout_sec"); s != "" {
		secs, err := strconv.Atoi(s)
		if err != nil || secs < 0 {
			writeText(w, http.StatusBadRequest, "timeout_sec must be a non-negative integer\n")
			return
		}
		if secs > 0 {
			t := time.NewTimer(time.Duration(secs) * time.Second)
			defer t.Stop()
			deadline = t.C
		}
	}
	ch, cancel := m.subscribe(key)
	defer cancel()
	for {
		a := m.render(key, segs, trailing, recursive, alt)
		if a.code != http.StatusOK {
			a.write(w, false)
			return
		}
		switch etag := a.etag(); {
		case baseline == "":
			baseline = etag
		case etag != baseline:
			a.write(w, true)
			return
		}
		select {
		case <-ch:
		case <-deadline:
			a.write(w, true)
			return
		case <-r.Context().Done():
			return
		}
	}
}

func (m *Server) writeGuestAttribute(w http.ResponseWriter, r *http.Request, key, namespace, name string) {
	var err error
	if r.Method == http.MethodDelete {
		err = m.inst.DeleteGuestAttribute(key, namespace, name)
	} else {
		body, rerr := io.ReadAll(io.LimitReader(r.Body, instances.MaxGuestAttributeValue+1))
		if rerr != nil {
			writeText(w, http.StatusBadRequest, rerr.Error()+"\n")
			return
		}
		err = m.inst.PutGuestAttribute(key, namespace, name, string(body))
	}
	switch {
	case err == nil:
		w.WriteHeader(http.StatusOK)
	case errors.Is(err, instances.ErrGuestAttributesDisabled):
		writeText(w, http.StatusForbidden, "Guest attributes endpoint access is disabled.\n")
	case errors.Is(err, instances.ErrNoInstance):
		notFound().write(w, false)
	default:
		writeText(w, http.StatusBadRequest, err.Error()+"\n")
	}
}

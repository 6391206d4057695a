package storage

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"time"

	"github.com/fsouza/fake-gcs-server/fakestorage"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// moveObject serves objects.move (POST .../o/{sourceObject}/moveTo/o/{destinationObject}): the object gets
// the new name in one step, which is how gcsfuse renames a file (a checkpoint written to a temporary name,
// then renamed). The object server has no such call, so the move is made of its parts under a lock that
// keeps moves from interleaving; the answer is the destination object.
func (s *Service) moveObject(w http.ResponseWriter, r *http.Request) {
	bucket, src, dst := r.PathValue("bucket"), r.PathValue("object"), r.PathValue("destObject")
	if !s.Store.Exists(KindBuckets, bucketKey(bucket)) {
		writeError(w, bucketNotFound())
		return
	}
	s.moveMu.Lock()
	defer s.moveMu.Unlock()
	fs := s.objects.Load()
	obj, err := fs.GetObject(bucket, src)
	if err != nil {
		writeError(w, &core.APIError{Code: http.StatusNotFound, Reason: "notFound", Message: fmt.Sprintf("No such object: %s/%s", bucket, src)})
		return
	}
	q := r.URL.Query()
	if v := q.Get("ifSourceGenerationMatch"); v != "" && v != strconv.FormatInt(obj.Generation, 10) {
		writeError(w, preconditionFailed())
		return
	}
	if v := q.Get("ifGenerationMatch"); v != "" {
		cur, err := fs.GetObject(bucket, dst)
		exists := err == nil
		if (v == "0" && exists) || (v != "0" && (!exists || v != strconv.FormatInt(cur.Generation, 10))) {
			writeError(w, preconditionFailed())
			return
		}
	}
	moved := fakestorage.Object{ObjectAttrs: obj.ObjectAttrs, Content: obj.Content}
	moved.Name, moved.Generation, moved.Etag = dst, 0, ""
	moved.Created, moved.Updated = time.Time{}, time.Time{}
	if err := fs.CreateObjectStreaming(moved.StreamingObject()); err != nil {
		writeError(w, core.Internal(err.Error()))
		return
	}
	if err := fs.Backend().DeleteObject(bucket, src); err != nil {
		writeError(w, core.Internal(err.Error()))
		return
	}
	// The destination as objects.get renders it.
	get := httptest.NewRequestWithContext(r.Context(), http.MethodGet, "/storage/v1/b/"+url.PathEscape(bucket)+"/o/"+url.PathEscape(dst), nil)
	rec := httptest.NewRecorder()
	fs.HTTPHandler().ServeHTTP(rec, get)
	rec.Header().Del("Content-Length")
	for k, vs := range rec.Header() {
		w.Header()[k] = vs
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(s.objectJSON(r, rec.Body.Bytes()))
}

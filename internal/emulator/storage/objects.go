package storage

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"

	"github.com/fsouza/fake-gcs-server/fakestorage"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// objectCall hands an object call to the object server once the buckets it names exist here, so objects only
// ever live in buckets the JSON API created.
func (s *Service) objectCall(w http.ResponseWriter, r *http.Request) {
	for _, name := range []string{r.PathValue("bucket"), r.PathValue("destBucket")} {
		if name != "" && !s.Store.Exists(KindBuckets, bucketKey(name)) {
			writeError(w, bucketNotFound())
			return
		}
	}
	h := s.objects.Load().HTTPHandler()
	if object := r.PathValue("object"); object != "" && !strings.HasSuffix(r.URL.Path, "/compose") {
		// The object server's 404 has no body; the API names the object.
		w = &objectNotFound{ResponseWriter: w, bucket: r.PathValue("bucket"), object: object}
	}
	if r.Method == http.MethodDelete && r.PathValue("object") != "" {
		// The API answers a deleted object with 204 and no body; the object server says 200 "null".
		rec := &noContent{ResponseWriter: w}
		h.ServeHTTP(rec, r)
		return
	}
	if r.URL.Query().Get("alt") == "media" || strings.HasPrefix(r.URL.Path, "/download/") {
		h.ServeHTTP(w, r) // object data streams through untouched
		return
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	body := rec.Body.Bytes()
	if (r.Method == http.MethodPatch || r.Method == http.MethodPut) && rec.Code == http.StatusOK && r.PathValue("object") != "" {
		// The object server answers a patch or update with its own record (no kind, no metageneration);
		// the API answers the object resource, which its get gives.
		get := httptest.NewRequest(http.MethodGet, "/storage/v1/b/"+url.PathEscape(r.PathValue("bucket"))+"/o/"+url.PathEscape(r.PathValue("object")), nil)
		get.URL.RawQuery = r.URL.RawQuery
		again := httptest.NewRecorder()
		h.ServeHTTP(again, get)
		if again.Code == http.StatusOK {
			rec, body = again, again.Body.Bytes()
		}
	}
	if rec.Code == http.StatusOK && strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		body = s.objectJSON(r, body)
		rec.Header().Del("Content-Length")
	}
	for k, vs := range rec.Header() {
		w.Header()[k] = vs
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(body)
}

// objectJSON makes the object server's object resources (one, or a list's items) what the API answers: the id
// carries the generation, and acl and owner appear only with projection=full on a bucket that still has ACLs
// (uniform bucket-level access has none).
func (s *Service) objectJSON(r *http.Request, body []byte) []byte {
	var m map[string]any
	if json.Unmarshal(body, &m) != nil {
		return body
	}
	keepACL := r.URL.Query().Get("projection") == "full"
	var aclBucket *Bucket
	if keepACL {
		b, err := s.bucket(r.PathValue("bucket"))
		if err != nil || b.uniformAccess() {
			keepACL = false
		}
		aclBucket = b
	}
	fix := func(o map[string]any) {
		if o["kind"] != "storage#object" {
			return
		}
		bucket, _ := o["bucket"].(string)
		name, _ := o["name"].(string)
		gen, _ := o["generation"].(string)
		if !keepACL {
			delete(o, "acl")
			delete(o, "owner")
		} else if g, err := strconv.ParseInt(gen, 10, 64); err == nil && aclBucket != nil && aclBucket.Name == bucket {
			// The object's ACL is this package's (the object server's has the wrong entities).
			o["acl"] = s.objectACLs(aclBucket, name, g)
		}
		o["id"] = bucket + "/" + name + "/" + gen
		metagen, _ := o["metageneration"].(string)
		o["etag"] = objectEtag(gen, metagen)
		path := url.PathEscape(bucket) + "/o/" + url.PathEscape(name)
		o["selfLink"] = selfLinkBase + path
		o["mediaLink"] = "https://storage.googleapis.com/download/storage/v1/b/" + path + "?generation=" + gen + "&alt=media"
	}
	fix(m)
	if items, ok := m["items"].([]any); ok {
		for _, it := range items {
			if o, ok := it.(map[string]any); ok {
				fix(o)
			}
		}
	}
	out, err := json.Marshal(m)
	if err != nil {
		return body
	}
	return out
}

// objectEtag is the etag the real API gives an object: the base64 of protobuf varint fields 1 (generation) and
// 2 (metageneration), e.g. "CJ+Fo7z+rYMDEAE=" (not the MD5 the object server uses, which clients must not
// take for one).
func objectEtag(generation, metageneration string) string {
	g, _ := strconv.ParseUint(generation, 10, 64)
	m, err := strconv.ParseUint(metageneration, 10, 64)
	if err != nil {
		m = 1
	}
	b := binary.AppendUvarint([]byte{0x08}, g)
	b = binary.AppendUvarint(append(b, 0x10), m)
	return base64.StdEncoding.EncodeToString(b)
}

// objectNotFound answers the object server's 404 as the API does: "No such object: BUCKET/OBJECT".
type objectNotFound struct {
	http.ResponseWriter
	bucket, object string
	swallow        bool
}

func (n *objectNotFound) WriteHeader(code int) {
	if code != http.StatusNotFound || n.swallow {
		n.ResponseWriter.WriteHeader(code)
		return
	}
	n.swallow = true
	n.Header().Del("Content-Length")
	writeError(n.ResponseWriter, &core.APIError{Code: http.StatusNotFound, Reason: "notFound", Message: "No such object: " + n.bucket + "/" + n.object})
}

func (n *objectNotFound) Write(b []byte) (int, error) {
	if n.swallow {
		return len(b), nil
	}
	return n.ResponseWriter.Write(b)
}

// noContent turns a 200 answer into 204 with no body and passes any other answer through.
type noContent struct {
	http.ResponseWriter
	status int
}

func (n *noContent) WriteHeader(code int) {
	n.status = code
	if code == http.StatusOK {
		code = http.StatusNoContent
		n.Header().Del("Content-Type")
	}
	n.ResponseWriter.WriteHeader(code)
}

func (n *noContent) Write(b []byte) (int, error) {
	if n.status == 0 {
		n.WriteHeader(http.StatusOK)
	}
	if n.status == http.StatusOK {
		return len(b), nil
	}
	return n.ResponseWriter.Write(b)
}

// mirrorBucket keeps the object server's buckets in step with the committed ones (created here, loaded from a
// state file, deleted, or dropped by a reset): a bucket leaving the store takes its objects with it.
func (s *Service) mirrorBucket(c core.Change) {
	if c.Kind != KindBuckets {
		return
	}
	fs := s.objects.Load()
	var b, old Bucket
	switch {
	case c.New != nil && c.Old == nil:
		if core.Decode(c.New, &b) == nil {
			fs.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: b.Name, VersioningEnabled: b.versioning()})
		}
	case c.New == nil && c.Old != nil:
		if core.Decode(c.Old, &b) == nil {
			s.dropBucket(fs, b.Name)
		}
	case core.Decode(c.New, &b) == nil && core.Decode(c.Old, &old) == nil && b.versioning() != old.versioning():
		s.setObjectVersioning(fs, b.Name, b.versioning())
	}
}

// setObjectVersioning makes the object server keep (or stop keeping) noncurrent generations of the bucket's
// objects, as the bucket's versioning now says. The object server takes it only through its own JSON API.
func (s *Service) setObjectVersioning(fs *fakestorage.Server, name string, on bool) {
	body, _ := json.Marshal(map[string]any{"versioning": map[string]bool{"enabled": on}})
	req := httptest.NewRequest(http.MethodPatch, "/storage/v1/b/"+url.PathEscape(name), strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	fs.HTTPHandler().ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		s.Log.Error("setting a bucket's object versioning", "bucket", name, "status", rec.Code, "body", rec.Body.String())
	}
}

func (s *Service) dropBucket(fs *fakestorage.Server, name string) {
	be := fs.Backend()
	objs, err := be.ListObjects(name, "", true)
	if err != nil {
		return // the object server never had it (a reset already replaced it)
	}
	for _, o := range objs {
		_ = be.DeleteObjectWithGeneration(name, o.Name, o.Generation)
	}
	if err := be.DeleteBucket(name); err != nil {
		s.Log.Error("dropping a bucket's objects", "bucket", name, "err", err)
	}
}

// Package storage emulates the Cloud Storage JSON API (storage.googleapis.com) under /storage/v1/,
// /upload/storage/v1/ and /download/storage/v1/, plus the XML API's object reads at /BUCKET/OBJECT that the Go
// client (and so gcsfuse) uses for downloads.
//
// Buckets are this package's own: kept in the store (kind storage.buckets) in the API's wire form, with
// location, storage class, Autoclass, hierarchical namespace, uniform bucket-level access, labels, soft delete,
// metageneration and etag as the real API answers them, and checked against the catalog's bucket rules. Objects
// are github.com/fsouza/fake-gcs-server's (its fakestorage handler, embedded, in memory): every bucket in the
// store is mirrored into it, and object calls reach it only for buckets that exist here, so a call never
// creates a bucket by the side door.
package storage

import (
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/fsouza/fake-gcs-server/fakestorage"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// KindBuckets holds the buckets; key projects/_/buckets/{name} (Cloud Storage's resource name: bucket names are
// global), value the JSON API's Bucket.
const KindBuckets = "storage.buckets"

// ComponentName is the name Register provides the Service under (srv.Component).
const ComponentName = "storage"

// selfLinkBase is where the real API's selfLinks point.
const selfLinkBase = "https://www.googleapis.com/storage/v1/b/"

// Service is the Cloud Storage API bound to the emulator core.
type Service struct {
	*core.Server
	objects atomic.Pointer[fakestorage.Server]
	moveMu  sync.Mutex
}

// Register mounts the Cloud Storage API on srv.
func Register(srv *core.Server) *Service {
	s := &Service{Server: srv}
	s.objects.Store(newObjectServer())
	// A reset starts from an empty object server (in-flight resumable uploads included); the store's
	// replacement has already dropped every bucket.
	srv.OnReset(func() { s.objects.Store(newObjectServer()) })
	cancel := srv.Store.Watch(s.mirrorBucket)
	srv.OnClose(cancel)

	const b = "/storage/v1/b"
	const bucket = b + "/{bucket}"
	h := s.Router.Handle
	for _, p := range []string{b, b + "/{$}"} {
		h("POST "+p, "storage.buckets.insert", core.Mutating, s.insertBucket)
		h("GET "+p, "storage.buckets.list", core.Read, s.listBuckets)
	}
	h("GET "+bucket, "storage.buckets.get", core.Read, s.getBucket)
	h("PATCH "+bucket, "storage.buckets.patch", core.Mutating, s.patchBucket)
	h("PUT "+bucket, "storage.buckets.update", core.Mutating, s.updateBucket)
	h("DELETE "+bucket, "storage.buckets.delete", core.Mutating, s.deleteBucket)
	h("GET "+bucket+"/storageLayout", "storage.buckets.getStorageLayout", core.Read, s.getStorageLayout)
	s.registerACLs(bucket)
	s.registerNotifications(bucket)
	s.registerFolders(bucket)

	// Object names arrive path-escaped ("a%2Fb"), one segment each; the {object...} forms also take names
	// whose slashes a hand-written request left unescaped.
	const o = bucket + "/o"
	const object = o + "/{object}"
	for _, p := range []string{o, o + "/{$}"} {
		h("GET "+p, "storage.objects.list", core.Read, s.objectCall)
	}
	for _, p := range []string{object, o + "/{object...}"} {
		h("GET "+p, "storage.objects.get", core.Read, s.objectCall)
		h("DELETE "+p, "storage.objects.delete", core.Mutating, s.objectCall)
		h("PATCH "+p, "storage.objects.patch", core.Mutating, s.objectCall)
		h("PUT "+p, "storage.objects.update", core.Mutating, s.objectCall)
	}
	s.registerObjectACLs(object)
	h("POST "+object+"/compose", "storage.objects.compose", core.Mutating, s.objectCall)
	h("POST "+object+"/rewriteTo/b/{destBucket}/o/{destObject}", "storage.objects.rewrite", core.Mutating, s.objectCall)
	h("POST "+object+"/copyTo/b/{destBucket}/o/{destObject}", "storage.objects.copy", core.Mutating, s.objectCall)
	h("POST "+object+"/moveTo/o/{destObject}", "storage.objects.move", core.Mutating, s.moveObject)
	for _, p := range []string{"/upload/storage/v1/b/{bucket}/o", "/upload/storage/v1/b/{bucket}/o/{$}"} {
		// POST starts an upload (media, multipart, resumable); PUT sends a resumable upload's data, DELETE
		// cancels it. All are the one discovery method.
		h("POST "+p, "storage.objects.insert", core.Mutating, s.objectCall)
		h("PUT "+p, "storage.objects.insert", core.Mutating, s.objectCall)
		h("DELETE "+p, "storage.objects.insert", core.Mutating, s.objectCall)
	}
	for _, p := range []string{"/download/storage/v1/b/{bucket}/o/{object}", "/download/storage/v1/b/{bucket}/o/{object...}"} {
		h("GET "+p, "storage.objects.get", core.Read, s.objectCall)
	}
	srv.Provide(ComponentName, s)
	return s
}

func newObjectServer() *fakestorage.Server {
	// ExternalURL makes objects' selfLink and mediaLink the real API's.
	fs, err := fakestorage.NewServerWithOptions(fakestorage.Options{NoListener: true, ExternalURL: "https://www.googleapis.com"})
	if err != nil {
		// Only a seed directory or a listener can fail, and neither is used.
		panic("fake-gcs-server: " + err.Error())
	}
	return fs
}

// apiPrefixes are first path segments that belong to an API, never to the XML API's /BUCKET/OBJECT.
var apiPrefixes = map[string]bool{
	"compute": true, "computeMetadata": true, "filestore": true, "lustre": true, "servicenetworking": true,
	"emulator": true, "storage": true, "upload": true, "download": true, "batch": true, "v1": true,
}

// XMLReads serves the XML API's object reads (GET/HEAD /BUCKET/OBJECT, what the Go client sends for downloads to
// the endpoint's host) for buckets that exist, as the JSON API's media download of the same object, which the
// router counts as storage.objects.get; every other request goes to next.
func (s *Service) XMLReads(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			raw := r.URL.EscapedPath()
			bucket, object, ok := strings.Cut(strings.TrimPrefix(raw, "/"), "/")
			if ok && object != "" && !apiPrefixes[bucket] && s.Store.Exists(KindBuckets, bucketKey(bucket)) {
				r2 := r.Clone(r.Context())
				escaped := strings.ReplaceAll(object, "/", "%2F")
				r2.URL.RawPath = "/download/storage/v1/b/" + bucket + "/o/" + escaped
				r2.URL.Path = "/download/storage/v1/b/" + bucket + "/o/" + unescape(object)
				q := r2.URL.Query()
				q.Set("alt", "media")
				r2.URL.RawQuery = q.Encode()
				next.ServeHTTP(w, r2)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

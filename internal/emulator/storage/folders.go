package storage

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// Store kinds of folders: key projects/_/buckets/{bucket}/folders/{name} (name ends with "/"), value a Folder.
const (
	// KindFolders holds the folders a hierarchical-namespace bucket was asked to create; the folders its
	// objects' names imply are answered too, without a record.
	KindFolders = "storage.folders"
	// KindManagedFolders holds managed folders (IAM scopes over a prefix; uniform bucket-level access only).
	KindManagedFolders = "storage.managedFolders"
)

// Folder is the JSON API's folder and managedFolder resource.
type Folder struct {
	Kind           string `json:"kind"`
	ID             string `json:"id"`
	SelfLink       string `json:"selfLink"`
	Name           string `json:"name"`
	Bucket         string `json:"bucket"`
	Metageneration string `json:"metageneration"`
	CreateTime     string `json:"createTime"`
	UpdateTime     string `json:"updateTime"`
}

// folderAPI is what differs between folders and managed folders.
type folderAPI struct {
	kind, resource, collection, method string
	managed                            bool
}

var (
	foldersAPI        = folderAPI{kind: KindFolders, resource: "storage#folder", collection: "folders", method: "storage.folders."}
	managedFoldersAPI = folderAPI{kind: KindManagedFolders, resource: "storage#managedFolder", collection: "managedFolders", method: "storage.managedFolders.", managed: true}
)

func (api folderAPI) prefix(bucket string) string {
	return bucketKey(bucket) + "/" + api.collection + "/"
}

func (api folderAPI) folder(b *Bucket, name, created string) Folder {
	return Folder{
		Kind: api.resource, ID: b.Name + "/" + name, Name: name, Bucket: b.Name, Metageneration: "1",
		SelfLink:   selfLink(b.Name) + "/" + api.collection + "/" + url.PathEscape(name),
		CreateTime: created, UpdateTime: created,
	}
}

func (s *Service) registerFolders(bucket string) {
	h := s.Router.Handle
	for _, api := range []folderAPI{foldersAPI, managedFoldersAPI} {
		c := bucket + "/" + api.collection
		h("POST "+c, api.method+"insert", core.Mutating, func(w http.ResponseWriter, r *http.Request) { s.insertFolder(w, r, api) })
		h("GET "+c, api.method+"list", core.Read, func(w http.ResponseWriter, r *http.Request) { s.listFolders(w, r, api) })
		// Folder names end with "/": sent escaped ("a%2Fb%2F") they are one segment, unescaped several.
		for _, p := range []string{c + "/{folder}", c + "/{folder...}"} {
			h("GET "+p, api.method+"get", core.Read, func(w http.ResponseWriter, r *http.Request) { s.getFolder(w, r, api) })
			h("DELETE "+p, api.method+"delete", core.Mutating, func(w http.ResponseWriter, r *http.Request) { s.deleteFolder(w, r, api) })
		}
	}
}

// folderName is a folder name as the API keeps it: with its trailing "/".
func folderName(name string) string {
	if name != "" && !strings.HasSuffix(name, "/") {
		name += "/"
	}
	return name
}

// checkFolderBucket answers the 400 for the bucket's kind: folders live in hierarchical-namespace buckets,
// managed folders in buckets with uniform bucket-level access.
func (api folderAPI) checkBucket(b *Bucket) error {
	if api.managed && !b.uniformAccess() {
		return badRequest("invalid", "Managed folders can only be used in buckets with uniform bucket-level access enabled.")
	}
	if !api.managed && !b.hns() {
		return badRequest("invalid", "The folder operation is only supported on buckets with hierarchical namespace enabled.")
	}
	return nil
}

func (s *Service) insertFolder(w http.ResponseWriter, r *http.Request, api folderAPI) {
	var req struct {
		Name string `json:"name"`
	}
	if err := decode(r, &req); err != nil {
		writeError(w, err)
		return
	}
	name := folderName(req.Name)
	if name == "" || name == "/" || strings.HasPrefix(name, "/") || strings.Contains(name, "//") {
		writeError(w, badRequest("invalid", fmt.Sprintf("Invalid %s name: '%s'.", strings.TrimSuffix(api.collection, "s"), req.Name)))
		return
	}
	recursive := r.URL.Query().Get("recursive") == "true"
	bucketName := r.PathValue("bucket")
	var out Folder
	err := s.Store.Update(func(tx *core.Tx) error {
		var b Bucket
		if ok, _ := tx.Get(KindBuckets, bucketKey(bucketName), &b); !ok {
			return bucketNotFound()
		}
		if err := api.checkBucket(&b); err != nil {
			return err
		}
		if s.folderExists(tx, api, &b, name) {
			return &core.APIError{Code: http.StatusConflict, Reason: "conflict", Message: fmt.Sprintf("The %s you tried to create already exists.", strings.ToLower(api.noun()))}
		}
		now := timestamp(s.Now())
		var missing []string
		if !api.managed {
			for _, p := range parents(name) {
				if !s.folderExists(tx, api, &b, p) {
					missing = append(missing, p)
				}
			}
			if len(missing) > 0 && !recursive {
				return &core.APIError{Code: http.StatusNotFound, Reason: "notFound", Message: fmt.Sprintf("The parent folder '%s' of '%s' does not exist; create it first or set recursive=true.", missing[len(missing)-1], name)}
			}
		}
		for _, p := range append(missing, name) {
			out = api.folder(&b, p, now)
			if err := tx.Put(api.kind, api.prefix(b.Name)+p, &out); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		writeError(w, err)
		return
	}
	core.WriteJSON(w, http.StatusOK, out)
}

func (api folderAPI) noun() string {
	if api.managed {
		return "Managed folder"
	}
	return "Folder"
}

// parents are the folders above name, outermost first ("a/b/c/" → "a/", "a/b/").
func parents(name string) []string {
	var out []string
	for i := 0; i < len(name)-1; i++ {
		if name[i] == '/' {
			out = append(out, name[:i+1])
		}
	}
	return out
}

// folderExists reports a recorded folder, or for a hierarchical-namespace bucket one its objects imply.
func (s *Service) folderExists(r interface {
	Exists(kind, key string) bool
}, api folderAPI, b *Bucket, name string) bool {
	if r.Exists(api.kind, api.prefix(b.Name)+name) {
		return true
	}
	return !api.managed && s.impliedFolders(b.Name)[name]
}

// impliedFolders are the folders the names of the bucket's objects pass through: in a hierarchical-namespace
// bucket writing "a/b/c" makes "a/" and "a/b/".
func (s *Service) impliedFolders(bucket string) map[string]bool {
	out := map[string]bool{}
	objs, err := s.objects.Load().Backend().ListObjects(bucket, "", false)
	if err != nil {
		return out
	}
	for _, o := range objs {
		for _, p := range parents(o.Name) {
			out[p] = true
		}
	}
	return out
}

func (s *Service) folders(api folderAPI, b *Bucket) map[string]Folder {
	out := map[string]Folder{}
	if !api.managed {
		for name := range s.impliedFolders(b.Name) {
			out[name] = api.folder(b, name, b.TimeCreated)
		}
	}
	for _, rec := range s.Store.List(api.kind, api.prefix(b.Name)) {
		var f Folder
		if rec.Decode(&f) == nil {
			out[f.Name] = f
		}
	}
	return out
}

// listFolders answers the bucket's folders by name, with prefix, maxResults and pageToken.
func (s *Service) listFolders(w http.ResponseWriter, r *http.Request, api folderAPI) {
	b, err := s.bucket(r.PathValue("bucket"))
	if err == nil {
		err = api.checkBucket(b)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	q := r.URL.Query()
	after, ok := decodePageToken(q.Get("pageToken"))
	if !ok {
		writeError(w, badRequest("invalid", "The page token is invalid."))
		return
	}
	max := 1000
	if v := q.Get("maxResults"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			writeError(w, badRequest("invalid", fmt.Sprintf("Invalid unsigned integer value: '%s'.", v)))
			return
		}
		if n > 0 && n < max {
			max = n
		}
	}
	all := s.folders(api, b)
	var names []string
	for n := range all {
		if strings.HasPrefix(n, q.Get("prefix")) && (after == "" || n > after) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	out := struct {
		Kind          string   `json:"kind"`
		Items         []Folder `json:"items,omitempty"`
		NextPageToken string   `json:"nextPageToken,omitempty"`
	}{Kind: api.resource + "s"}
	for i, n := range names {
		if i == max {
			out.NextPageToken = encodePageToken(names[i-1])
			break
		}
		out.Items = append(out.Items, all[n])
	}
	core.WriteJSON(w, http.StatusOK, out)
}

func (s *Service) getFolder(w http.ResponseWriter, r *http.Request, api folderAPI) {
	b, err := s.bucket(r.PathValue("bucket"))
	if err == nil {
		err = api.checkBucket(b)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	name := folderName(r.PathValue("folder"))
	f, ok := s.folders(api, b)[name]
	if !ok {
		writeError(w, folderNotFound(api, b.Name, name))
		return
	}
	core.WriteJSON(w, http.StatusOK, f)
}

// deleteFolder removes an empty folder (no objects or folders under it) or managed folder (no objects under it,
// unless allowNonEmpty=true; nested managed folders stay).
func (s *Service) deleteFolder(w http.ResponseWriter, r *http.Request, api folderAPI) {
	bucketName, name := r.PathValue("bucket"), folderName(r.PathValue("folder"))
	allowNonEmpty := r.URL.Query().Get("allowNonEmpty") == "true"
	err := s.Store.Update(func(tx *core.Tx) error {
		var b Bucket
		if ok, _ := tx.Get(KindBuckets, bucketKey(bucketName), &b); !ok {
			return bucketNotFound()
		}
		if err := api.checkBucket(&b); err != nil {
			return err
		}
		if !s.folderExists(tx, api, &b, name) {
			return folderNotFound(api, b.Name, name)
		}
		objs, _ := s.objects.Load().Backend().ListObjects(b.Name, name, false)
		nonEmpty := len(objs) > 0
		if !api.managed {
			for _, rec := range tx.List(api.kind, api.prefix(b.Name)+name) {
				nonEmpty = nonEmpty || rec.Key != api.prefix(b.Name)+name
			}
		}
		if nonEmpty && !(api.managed && allowNonEmpty) {
			return &core.APIError{Code: http.StatusConflict, Reason: "conflict", Message: fmt.Sprintf("The %s you tried to delete is not empty.", strings.ToLower(api.noun()))}
		}
		tx.Delete(api.kind, api.prefix(b.Name)+name)
		return nil
	})
	if err != nil {
		writeError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func folderNotFound(api folderAPI, bucket, name string) error {
	return &core.APIError{Code: http.StatusNotFound, Reason: "notFound", Message: fmt.Sprintf("The %s %s/%s does not exist.", strings.ToLower(api.noun()), bucket, name)}
}

// dropBucketChildren removes what lives under a bucket in the store (notifications, folders, managed
// folders, object ACLs) along with it.
func dropBucketChildren(tx *core.Tx, bucket string) {
	for kind, prefix := range map[string]string{
		KindNotifications:  notificationPrefix(bucket),
		KindFolders:        foldersAPI.prefix(bucket),
		KindManagedFolders: managedFoldersAPI.prefix(bucket),
		KindObjectACLs:     bucketKey(bucket) + "/objectAcls/",
	} {
		for _, rec := range tx.List(kind, prefix) {
			tx.Delete(kind, rec.Key)
		}
	}
}

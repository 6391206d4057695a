package storage

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

var numericProject = regexp.MustCompile(`^[0-9]+$`)

// projectNumber accepts a project id or number, as the API's project parameter does.
func projectNumber(project string) string {
	if numericProject.MatchString(project) {
		return project
	}
	return core.ProjectNumber(project)
}

func (s *Service) insertBucket(w http.ResponseWriter, r *http.Request) {
	project := r.URL.Query().Get("project")
	if project == "" {
		writeError(w, badRequest("required", "Required parameter: project"))
		return
	}
	var req bucketRequest
	if err := decode(r, &req); err != nil {
		writeError(w, err)
		return
	}
	if req.Name == nil || *req.Name == "" {
		writeError(w, badRequest("required", "Required"))
		return
	}
	name := *req.Name
	if catalog.ValidateBucketName(name) != nil {
		writeError(w, badRequest("invalid", fmt.Sprintf("Invalid bucket name: '%s'", name)))
		return
	}
	now := s.Now()
	b := &Bucket{
		Kind: "storage#bucket", SelfLink: selfLink(name), ID: name, Name: name,
		ProjectNumber: projectNumber(project),
		Generation:    strconv.FormatInt(now.UnixMicro(), 10),
		Location:      catalog.DefaultBucketLocation, StorageClass: "STANDARD",
		TimeCreated: timestamp(now), Updated: timestamp(now),
		IAMConfiguration: &IAMConfiguration{
			BucketPolicyOnly: &UniformAccess{}, UniformBucketLevelAccess: &UniformAccess{}, PublicAccessPrevention: "inherited",
		},
		SoftDeletePolicy: &SoftDeletePolicy{
			RetentionDurationSeconds: strconv.FormatInt(int64(catalog.SoftDeleteDefault/time.Second), 10),
			EffectiveTime:            timestamp(now),
		},
	}
	b.ACL, b.DefaultObjectACL = defaultACL(b.ProjectNumber), defaultACL(b.ProjectNumber)
	b.Owner = &Owner{Entity: "project-owners-" + b.ProjectNumber}
	if req.HierarchicalNamespace != nil && req.HierarchicalNamespace.Enabled != nil && *req.HierarchicalNamespace.Enabled {
		b.HierarchicalNamespace = &HierarchicalNamespace{Enabled: true}
	}
	if err := req.apply(b, now, false); err != nil {
		writeError(w, err)
		return
	}
	predefined, perr := applyPredefined(r.URL.Query(), b)
	if perr != nil {
		writeError(w, perr)
		return
	}
	err := s.Store.Update(func(tx *core.Tx) error {
		var old Bucket
		if ok, _ := tx.Get(KindBuckets, bucketKey(name), &old); ok {
			if old.ProjectNumber == b.ProjectNumber {
				return &core.APIError{Code: http.StatusConflict, Reason: "conflict", Message: "Your previous request to create the named bucket succeeded and you already own it."}
			}
			return &core.APIError{Code: http.StatusConflict, Reason: "conflict", Message: "The requested bucket name is not available. The bucket namespace is shared by all users of the system. Please select a different name and try again."}
		}
		b.Metageneration, b.Etag = "1", bucketEtag(1)
		return tx.Put(KindBuckets, bucketKey(name), b)
	})
	if err != nil {
		writeError(w, err)
		return
	}
	// insert answers noAcl unless the request set ACLs itself.
	core.WriteJSON(w, http.StatusOK, b.answer(fullProjection(r.URL.Query(), predefined || req.ACL != nil || req.DefaultObjectACL != nil)))
}

func (s *Service) getBucket(w http.ResponseWriter, r *http.Request) {
	b, err := s.bucket(r.PathValue("bucket"))
	if err == nil {
		err = metagenerationPreconditions(r, b)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	core.WriteJSON(w, http.StatusOK, b.answer(fullProjection(r.URL.Query(), false)))
}

func (s *Service) getStorageLayout(w http.ResponseWriter, r *http.Request) {
	b, err := s.bucket(r.PathValue("bucket"))
	if err != nil {
		writeError(w, err)
		return
	}
	layout := StorageLayout{Kind: "storage#storageLayout", Bucket: b.Name, Location: b.Location, LocationType: b.LocationType}
	if b.hns() {
		layout.HierarchicalNamespace = &HierarchicalNamespace{Enabled: true}
	}
	core.WriteJSON(w, http.StatusOK, layout)
}

// listBuckets serves buckets.list: the project's buckets by name, prefix, maxResults (default and maximum
// 1000) and pageToken (an opaque token naming the last bucket of the previous page).
func (s *Service) listBuckets(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	project := q.Get("project")
	if project == "" {
		writeError(w, badRequest("required", "Required parameter: project"))
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
	after, ok := decodePageToken(q.Get("pageToken"))
	if !ok {
		writeError(w, badRequest("invalid", "The page token is invalid."))
		return
	}
	number, prefix := projectNumber(project), q.Get("prefix")
	full := fullProjection(q, false)
	var names []string
	byName := map[string]Bucket{}
	for _, rec := range s.Store.List(KindBuckets, "") {
		var b Bucket
		if rec.Decode(&b) != nil || b.ProjectNumber != number || !strings.HasPrefix(b.Name, prefix) || (after != "" && b.Name <= after) {
			continue
		}
		names = append(names, b.Name)
		byName[b.Name] = b
	}
	sort.Strings(names)
	out := struct {
		Kind          string   `json:"kind"`
		Items         []Bucket `json:"items,omitempty"`
		NextPageToken string   `json:"nextPageToken,omitempty"`
	}{Kind: "storage#buckets"}
	for i, n := range names {
		if i == max {
			out.NextPageToken = encodePageToken(names[i-1])
			break
		}
		out.Items = append(out.Items, byName[n].answer(full))
	}
	core.WriteJSON(w, http.StatusOK, out)
}

func (s *Service) patchBucket(w http.ResponseWriter, r *http.Request)  { s.changeBucket(w, r, false) }
func (s *Service) updateBucket(w http.ResponseWriter, r *http.Request) { s.changeBucket(w, r, true) }

// changeBucket serves patch (fields sent replace those kept; labels merge, a null label value removes it) and
// update (the body is the whole new bucket: what it leaves out goes back to its default).
func (s *Service) changeBucket(w http.ResponseWriter, r *http.Request, replace bool) {
	var req bucketRequest
	if err := decode(r, &req); err != nil {
		writeError(w, err)
		return
	}
	name := r.PathValue("bucket")
	var out *Bucket
	err := s.Store.Update(func(tx *core.Tx) error {
		var b Bucket
		if ok, _ := tx.Get(KindBuckets, bucketKey(name), &b); !ok {
			return bucketNotFound()
		}
		if err := metagenerationPreconditions(r, &b); err != nil {
			return err
		}
		if req.Name != nil && *req.Name != name {
			return badRequest("invalid", "The bucket name in the request body does not match the bucket in the URL.")
		}
		wantHNS := b.hns()
		if req.HierarchicalNamespace != nil && req.HierarchicalNamespace.Enabled != nil {
			wantHNS = *req.HierarchicalNamespace.Enabled
		} else if replace {
			wantHNS = false
		}
		if wantHNS != b.hns() {
			return badRequest("invalid", "The hierarchical namespace setting of a bucket cannot be changed after it is created.")
		}
		if req.Location != nil && !strings.EqualFold(*req.Location, b.Location) {
			return badRequest("invalid", "The location of a bucket cannot be changed.")
		}
		if replace {
			b.Labels, b.Lifecycle, b.Versioning = nil, nil, nil
			if req.StorageClass == nil {
				b.StorageClass = "STANDARD"
			}
		}
		now := s.Now()
		if err := req.apply(&b, now, true); err != nil {
			return err
		}
		if _, err := applyPredefined(r.URL.Query(), &b); err != nil {
			return err
		}
		b.touch(now)
		out = &b
		return tx.Put(KindBuckets, bucketKey(name), &b)
	})
	if err != nil {
		writeError(w, err)
		return
	}
	// patch and update answer the full projection unless asked otherwise.
	core.WriteJSON(w, http.StatusOK, out.answer(fullProjection(r.URL.Query(), true)))
}

func (s *Service) deleteBucket(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("bucket")
	err := s.Store.Update(func(tx *core.Tx) error {
		var b Bucket
		if ok, _ := tx.Get(KindBuckets, bucketKey(name), &b); !ok {
			return bucketNotFound()
		}
		if err := metagenerationPreconditions(r, &b); err != nil {
			return err
		}
		// Noncurrent generations a versioned bucket keeps count: Cloud Storage refuses to delete a bucket
		// holding any.
		if objs, err := s.objects.Load().Backend().ListObjects(name, "", true); err == nil && len(objs) > 0 {
			return &core.APIError{Code: http.StatusConflict, Reason: "conflict", Message: "The bucket you tried to delete is not empty."}
		}
		tx.Delete(KindBuckets, bucketKey(name))
		dropBucketChildren(tx, name)
		return nil
	})
	if err != nil {
		writeError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// bucket reads a bucket or answers the API's 404.
func (s *Service) bucket(name string) (*Bucket, error) {
	var b Bucket
	if ok, _ := s.Store.Get(KindBuckets, bucketKey(name), &b); !ok {
		return nil, bucketNotFound()
	}
	return &b, nil
}

// metagenerationPreconditions applies ifMetagenerationMatch / ifMetagenerationNotMatch.
func metagenerationPreconditions(r *http.Request, b *Bucket) error {
	q := r.URL.Query()
	if v := q.Get("ifMetagenerationMatch"); v != "" && v != b.Metageneration {
		return preconditionFailed()
	}
	if v := q.Get("ifMetagenerationNotMatch"); v != "" && v == b.Metageneration {
		if r.Method == http.MethodGet {
			return &core.APIError{Code: http.StatusNotModified, Reason: "notModified", Message: "Not Modified"}
		}
		return preconditionFailed()
	}
	return nil
}

func bucketNotFound() *core.APIError {
	return &core.APIError{Code: http.StatusNotFound, Reason: "notFound", Message: "The specified bucket does not exist."}
}

func preconditionFailed() *core.APIError {
	return &core.APIError{Code: http.StatusPreconditionFailed, Reason: "conditionNotMet",
		Message: "At least one of the pre-conditions you specified did not hold.", Location: "If-Match", LocationType: "header"}
}

func badRequest(reason, message string) *core.APIError {
	return &core.APIError{Code: http.StatusBadRequest, Reason: reason, Message: message}
}

// writeError answers in the JSON API's error format, which is Compute's shape
// ({"error":{"code","message","errors":[{"message","domain","reason"}]}}).
func writeError(w http.ResponseWriter, err error) {
	var ae *core.APIError
	if !errors.As(err, &ae) {
		ae = core.Internal(err.Error())
	}
	if ae.Code == http.StatusNotModified {
		w.WriteHeader(ae.Code)
		return
	}
	core.WriteJSON(w, ae.Code, ae.ComputeBody())
}

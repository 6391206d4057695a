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

// uniformAccessLock is how long after turning uniform bucket-level access on it can still be turned off.
const uniformAccessLock = 90 * 24 * time.Hour

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
	if req.HierarchicalNamespace != nil && req.HierarchicalNamespace.Enabled != nil && *req.HierarchicalNamespace.Enabled {
		b.HierarchicalNamespace = &HierarchicalNamespace{Enabled: true}
	}
	if err := req.apply(b, now, false); err != nil {
		writeError(w, err)
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
	core.WriteJSON(w, http.StatusOK, b)
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
	core.WriteJSON(w, http.StatusOK, b)
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
		out.Items = append(out.Items, byName[n])
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
		b.touch(now)
		out = &b
		return tx.Put(KindBuckets, bucketKey(name), &b)
	})
	if err != nil {
		writeError(w, err)
		return
	}
	core.WriteJSON(w, http.StatusOK, out)
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
		if objs, err := s.objects.Load().Backend().ListObjects(name, "", false); err == nil && len(objs) > 0 {
			return &core.APIError{Code: http.StatusConflict, Reason: "conflict", Message: "The bucket you tried to delete is not empty."}
		}
		tx.Delete(KindBuckets, bucketKey(name))
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

// apply sets the fields the request names on b and checks the result against the catalog's bucket rules.
func (req *bucketRequest) apply(b *Bucket, now time.Time, existing bool) error {
	if req.Location != nil && !existing {
		loc := strings.ToUpper(*req.Location)
		if catalog.ValidateBucketLocation(loc) != nil {
			return badRequest("invalid", "The specified location constraint is not valid.")
		}
		b.Location = loc
	}
	b.LocationType, _ = catalog.BucketLocationType(b.Location)
	b.RPO = ""
	if b.LocationType != "region" {
		b.RPO = "DEFAULT"
		if req.RPO != nil && *req.RPO != "" {
			if *req.RPO != "DEFAULT" && *req.RPO != "ASYNC_TURBO" {
				return badRequest("invalid", fmt.Sprintf("Invalid value for rpo: '%s'.", *req.RPO))
			}
			b.RPO = *req.RPO
		}
	}
	if req.StorageClass != nil {
		if catalog.ValidateBucketStorageClass(*req.StorageClass) != nil {
			return badRequest("invalid", "The specified storage class is not valid.")
		}
		b.StorageClass = *req.StorageClass
	}
	if req.Labels != nil {
		if b.Labels == nil {
			b.Labels = map[string]string{}
		}
		for k, v := range req.Labels {
			if v == nil {
				delete(b.Labels, k)
			} else {
				b.Labels[k] = *v
			}
		}
		if len(b.Labels) == 0 {
			b.Labels = nil
		}
		if err := catalog.ValidateLabels(b.Labels); err != nil {
			return badRequest("invalid", err.Error())
		}
	}
	if ic := req.IAMConfiguration; ic != nil {
		var on *bool
		if ic.BucketPolicyOnly != nil && ic.BucketPolicyOnly.Enabled != nil {
			on = ic.BucketPolicyOnly.Enabled
		}
		if ic.UniformBucketLevelAccess != nil && ic.UniformBucketLevelAccess.Enabled != nil {
			on = ic.UniformBucketLevelAccess.Enabled
		}
		if on != nil && *on != b.uniformAccess() {
			ua := &UniformAccess{Enabled: *on}
			if *on {
				ua.LockedTime = timestamp(now.Add(uniformAccessLock))
			} else if locked, err := time.Parse(time.RFC3339, b.IAMConfiguration.UniformBucketLevelAccess.LockedTime); err == nil && now.After(locked) {
				return badRequest("invalid", "Uniform bucket-level access cannot be disabled after it has been enabled for 90 days.")
			}
			b.IAMConfiguration.UniformBucketLevelAccess, b.IAMConfiguration.BucketPolicyOnly = ua, ua
		}
		if ic.PublicAccessPrevention != nil {
			if p := *ic.PublicAccessPrevention; p != "inherited" && p != "enforced" {
				return badRequest("invalid", fmt.Sprintf("Invalid value for publicAccessPrevention: '%s'.", p))
			}
			b.IAMConfiguration.PublicAccessPrevention = *ic.PublicAccessPrevention
		}
	}
	if ac := req.Autoclass; ac != nil && ac.Enabled != nil {
		if *ac.Enabled != b.autoclass() || b.Autoclass == nil {
			b.Autoclass = &Autoclass{Enabled: *ac.Enabled, ToggleTime: timestamp(now)}
		}
		if b.Autoclass.Enabled {
			terminal := "NEARLINE"
			if ac.TerminalStorageClass != nil && *ac.TerminalStorageClass != "" {
				terminal = *ac.TerminalStorageClass
			} else if b.Autoclass.TerminalStorageClass != "" {
				terminal = b.Autoclass.TerminalStorageClass
			}
			if terminal != "NEARLINE" && terminal != "ARCHIVE" {
				return badRequest("invalid", fmt.Sprintf("Invalid value for autoclass.terminalStorageClass: '%s'. It must be NEARLINE or ARCHIVE.", terminal))
			}
			if terminal != b.Autoclass.TerminalStorageClass {
				b.Autoclass.TerminalStorageClass, b.Autoclass.TerminalStorageClassUpdateTime = terminal, timestamp(now)
			}
		} else {
			b.Autoclass.TerminalStorageClass, b.Autoclass.TerminalStorageClassUpdateTime = "", ""
		}
	}
	if sd := req.SoftDeletePolicy; sd != nil && sd.RetentionDurationSeconds != nil {
		secs := int64(*sd.RetentionDurationSeconds)
		if catalog.ValidateSoftDeleteRetention(time.Duration(secs)*time.Second) != nil {
			return badRequest("invalid", fmt.Sprintf("Invalid argument: soft delete retention duration %d s must be 0 or between %d and %d seconds.",
				secs, int64(catalog.SoftDeleteMin/time.Second), int64(catalog.SoftDeleteMax/time.Second)))
		}
		b.SoftDeletePolicy = &SoftDeletePolicy{RetentionDurationSeconds: strconv.FormatInt(secs, 10)}
		if secs > 0 {
			b.SoftDeletePolicy.EffectiveTime = timestamp(now)
		}
	}
	if req.Versioning != nil && req.Versioning.Enabled != nil {
		b.Versioning = &Versioning{Enabled: *req.Versioning.Enabled}
	}
	if len(req.Lifecycle) > 0 {
		b.Lifecycle = req.Lifecycle
		if string(req.Lifecycle) == "null" {
			b.Lifecycle = nil
		}
	}
	if err := catalog.ValidateBucketFeatures(b.StorageClass, b.autoclass(), b.hns(), b.uniformAccess()); err != nil {
		if b.hns() && !b.uniformAccess() {
			return badRequest("invalid", "Hierarchical namespace requires uniform bucket-level access to be enabled.")
		}
		return badRequest("invalid", "Autoclass requires the bucket's storage class to be STANDARD.")
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

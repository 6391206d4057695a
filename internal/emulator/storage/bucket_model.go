package storage

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"net/url"
	"strconv"
	"time"
)

// Bucket is the JSON API's Bucket as the emulator keeps and answers it. Fields the real API always sends have no
// omitempty; the feature blocks appear once a bucket has had the feature.
type Bucket struct {
	Kind                  string                 `json:"kind"`
	SelfLink              string                 `json:"selfLink"`
	ID                    string                 `json:"id"`
	Name                  string                 `json:"name"`
	ProjectNumber         string                 `json:"projectNumber"`
	Generation            string                 `json:"generation"`
	Metageneration        string                 `json:"metageneration"`
	Location              string                 `json:"location"`
	LocationType          string                 `json:"locationType"`
	RPO                   string                 `json:"rpo,omitempty"`
	StorageClass          string                 `json:"storageClass"`
	Etag                  string                 `json:"etag"`
	TimeCreated           string                 `json:"timeCreated"`
	Updated               string                 `json:"updated"`
	Labels                map[string]string      `json:"labels,omitempty"`
	IAMConfiguration      *IAMConfiguration      `json:"iamConfiguration"`
	Autoclass             *Autoclass             `json:"autoclass,omitempty"`
	HierarchicalNamespace *HierarchicalNamespace `json:"hierarchicalNamespace,omitempty"`
	SoftDeletePolicy      *SoftDeletePolicy      `json:"softDeletePolicy"`
	Versioning            *Versioning            `json:"versioning,omitempty"`
	// Lifecycle and IPFilter are kept as the caller sent them.
	Lifecycle json.RawMessage `json:"lifecycle,omitempty"`
	IPFilter  json.RawMessage `json:"ipFilter,omitempty"`
	// The ACLs are kept in their stored form (entity and role); answer renders them for projection=full.
	ACL              []AccessControl `json:"acl,omitempty"`
	DefaultObjectACL []AccessControl `json:"defaultObjectAcl,omitempty"`
	Owner            *Owner          `json:"owner,omitempty"`
}

// IAMConfiguration is the bucket's access model; bucketPolicyOnly is the legacy name the API still mirrors.
type IAMConfiguration struct {
	BucketPolicyOnly         *UniformAccess `json:"bucketPolicyOnly"`
	UniformBucketLevelAccess *UniformAccess `json:"uniformBucketLevelAccess"`
	PublicAccessPrevention   string         `json:"publicAccessPrevention"`
}

// UniformAccess is uniform bucket-level access; lockedTime is when it can no longer be turned off (90 days
// after it was turned on).
type UniformAccess struct {
	Enabled    bool   `json:"enabled"`
	LockedTime string `json:"lockedTime,omitempty"`
}

// Autoclass moves objects between storage classes by access.
type Autoclass struct {
	Enabled                        bool   `json:"enabled"`
	ToggleTime                     string `json:"toggleTime,omitempty"`
	TerminalStorageClass           string `json:"terminalStorageClass,omitempty"`
	TerminalStorageClassUpdateTime string `json:"terminalStorageClassUpdateTime,omitempty"`
}

// HierarchicalNamespace makes folders real (set at creation only).
type HierarchicalNamespace struct {
	Enabled bool `json:"enabled"`
}

// SoftDeletePolicy keeps deleted objects restorable for the retention (seconds, as a decimal string).
type SoftDeletePolicy struct {
	RetentionDurationSeconds string `json:"retentionDurationSeconds"`
	EffectiveTime            string `json:"effectiveTime,omitempty"`
}

// Versioning keeps noncurrent object generations.
type Versioning struct {
	Enabled bool `json:"enabled"`
}

// StorageLayout is buckets.getStorageLayout's answer.
type StorageLayout struct {
	Kind                  string                 `json:"kind"`
	Bucket                string                 `json:"bucket"`
	Location              string                 `json:"location"`
	LocationType          string                 `json:"locationType"`
	HierarchicalNamespace *HierarchicalNamespace `json:"hierarchicalNamespace,omitempty"`
}

func bucketKey(name string) string { return "projects/_/buckets/" + name }

func selfLink(name string) string { return selfLinkBase + url.PathEscape(name) }

func timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// bucketEtag is what the real API sends: the base64 of a protobuf varint field 1 holding the metageneration
// ("CAE=" for metageneration 1).
func bucketEtag(metageneration int64) string {
	b := binary.AppendUvarint([]byte{0x08}, uint64(metageneration))
	return base64.StdEncoding.EncodeToString(b)
}

func (b *Bucket) metageneration() int64 {
	n, _ := strconv.ParseInt(b.Metageneration, 10, 64)
	return n
}

// touch records a change: metageneration + 1, new etag and updated time.
func (b *Bucket) touch(now time.Time) {
	m := b.metageneration() + 1
	b.Metageneration = strconv.FormatInt(m, 10)
	b.Etag = bucketEtag(m)
	b.Updated = timestamp(now)
}

func (b *Bucket) uniformAccess() bool {
	return b.IAMConfiguration != nil && b.IAMConfiguration.UniformBucketLevelAccess != nil && b.IAMConfiguration.UniformBucketLevelAccess.Enabled
}

func (b *Bucket) hns() bool { return b.HierarchicalNamespace != nil && b.HierarchicalNamespace.Enabled }

func (b *Bucket) versioning() bool { return b.Versioning != nil && b.Versioning.Enabled }

func (b *Bucket) autoclass() bool { return b.Autoclass != nil && b.Autoclass.Enabled }

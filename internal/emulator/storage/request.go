package storage

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// bucketRequest is a buckets.insert/patch/update body; pointers tell a field sent from one left out.
type bucketRequest struct {
	Name             *string            `json:"name"`
	Location         *string            `json:"location"`
	StorageClass     *string            `json:"storageClass"`
	RPO              *string            `json:"rpo"`
	Labels           map[string]*string `json:"labels"`
	IAMConfiguration *struct {
		BucketPolicyOnly         *struct{ Enabled *bool } `json:"bucketPolicyOnly"`
		UniformBucketLevelAccess *struct{ Enabled *bool } `json:"uniformBucketLevelAccess"`
		PublicAccessPrevention   *string                  `json:"publicAccessPrevention"`
	} `json:"iamConfiguration"`
	Autoclass *struct {
		Enabled              *bool   `json:"enabled"`
		TerminalStorageClass *string `json:"terminalStorageClass"`
	} `json:"autoclass"`
	HierarchicalNamespace *struct {
		Enabled *bool `json:"enabled"`
	} `json:"hierarchicalNamespace"`
	SoftDeletePolicy *struct {
		RetentionDurationSeconds *int64String `json:"retentionDurationSeconds"`
	} `json:"softDeletePolicy"`
	Versioning *struct {
		Enabled *bool `json:"enabled"`
	} `json:"versioning"`
	Lifecycle        json.RawMessage  `json:"lifecycle"`
	IPFilter         json.RawMessage  `json:"ipFilter"`
	ACL              *[]AccessControl `json:"acl"`
	DefaultObjectACL *[]AccessControl `json:"defaultObjectAcl"`
}

// int64String is an int64 field of the JSON API: a decimal string on the wire, a bare number accepted too.
type int64String int64

func (n *int64String) UnmarshalJSON(b []byte) error {
	s := string(bytes.Trim(b, `"`))
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return err
	}
	*n = int64String(v)
	return nil
}

// decode reads a JSON body; an empty one is an empty request. Malformed JSON is the API's 400 parseError.
func decode(r *http.Request, v any) error {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		return badRequest("invalid", err.Error())
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	if err := json.Unmarshal(body, v); err != nil {
		return &core.APIError{Code: http.StatusBadRequest, Reason: "parseError", Message: "Parse Error: " + err.Error()}
	}
	return nil
}

func encodePageToken(last string) string { return base64.RawURLEncoding.EncodeToString([]byte(last)) }

func decodePageToken(tok string) (string, bool) {
	if tok == "" {
		return "", true
	}
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil || len(b) == 0 {
		return "", false
	}
	return string(b), true
}

func unescape(s string) string {
	if u, err := url.PathUnescape(s); err == nil {
		return u
	}
	return s
}

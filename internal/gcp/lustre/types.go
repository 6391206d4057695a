// Package lustre is a client for the Managed Lustre v1 REST API (lustre.googleapis.com),
// for which no Go client library is published. Its types are the wire format: the
// emulator serves the same structs, so client and fake cannot drift apart.
package lustre

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Type URLs of the messages that travel inside google.protobuf.Any fields.
const (
	InstanceTypeURL          = "type.googleapis.com/google.cloud.lustre.v1.Instance"
	OperationMetadataTypeURL = "type.googleapis.com/google.cloud.lustre.v1.OperationMetadata"
	EmptyTypeURL             = "type.googleapis.com/google.protobuf.Empty"
)

// Instance states.
const (
	StateCreating    = "CREATING"
	StateActive      = "ACTIVE"
	StateDeleting    = "DELETING"
	StateUpgrading   = "UPGRADING"
	StateRepairing   = "REPAIRING"
	StateStopped     = "STOPPED"
	StateSuspended   = "SUSPENDED"
	StateUnspecified = "STATE_UNSPECIFIED"
)

// Instance is a Managed Lustre instance. The int64 fields travel as JSON strings
// (proto3 JSON mapping); bare numbers are accepted when decoding.
type Instance struct {
	// Name is projects/{project}/locations/{zone}/instances/{id}.
	Name string `json:"name,omitempty"`
	// Filesystem is the Lustre filesystem name: ≤ 8 letters or digits, immutable.
	Filesystem  string `json:"filesystem,omitempty"`
	CapacityGib int64  `json:"capacityGib,omitempty"`
	// Network is projects/{project}/global/networks/{network}, immutable.
	Network string `json:"network,omitempty"`
	State   string `json:"state,omitempty"`
	// MountPoint is output only: IP_ADDRESS@tcp:/FILESYSTEM.
	MountPoint  string            `json:"mountPoint,omitempty"`
	CreateTime  string            `json:"createTime,omitempty"`
	UpdateTime  string            `json:"updateTime,omitempty"`
	Description string            `json:"description,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	// PerUnitStorageThroughput is MBps per TiB: 125, 250, 500 or 1000; 0 is the Dynamic tier.
	PerUnitStorageThroughput int64  `json:"perUnitStorageThroughput,omitempty"`
	GkeSupportEnabled        bool   `json:"gkeSupportEnabled,omitempty"`
	KmsKey                   string `json:"kmsKey,omitempty"`
	StateReason              string `json:"stateReason,omitempty"`
	UID                      string `json:"uid,omitempty"`
}

// instanceFields has Instance's fields and tags but not its JSON methods.
type instanceFields Instance

// MarshalJSON writes the int64 fields as strings.
func (i Instance) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		instanceFields
		CapacityGib              int64String `json:"capacityGib,omitempty"`
		PerUnitStorageThroughput int64String `json:"perUnitStorageThroughput,omitempty"`
	}{instanceFields(i), int64String(i.CapacityGib), int64String(i.PerUnitStorageThroughput)})
}

// UnmarshalJSON reads the int64 fields from strings or numbers.
func (i *Instance) UnmarshalJSON(b []byte) error {
	w := struct {
		*instanceFields
		CapacityGib              int64String `json:"capacityGib"`
		PerUnitStorageThroughput int64String `json:"perUnitStorageThroughput"`
	}{instanceFields: (*instanceFields)(i)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	i.CapacityGib = int64(w.CapacityGib)
	i.PerUnitStorageThroughput = int64(w.PerUnitStorageThroughput)
	return nil
}

// int64String is an int64 in proto3's JSON form: written as a string, read from either.
type int64String int64

func (n int64String) MarshalJSON() ([]byte, error) {
	return []byte(strconv.Quote(strconv.FormatInt(int64(n), 10))), nil
}

func (n *int64String) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" {
		return nil
	}
	if uq, err := strconv.Unquote(s); err == nil {
		s = uq
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("int64 field: %q is not an integer", string(b))
	}
	*n = int64String(v)
	return nil
}

// ListInstancesResponse is one page of instances.
type ListInstancesResponse struct {
	Instances     []*Instance `json:"instances,omitempty"`
	NextPageToken string      `json:"nextPageToken,omitempty"`
	Unreachable   []string    `json:"unreachable,omitempty"`
}

// Operation is a google.longrunning.Operation. Metadata and Response are
// google.protobuf.Any values kept as raw JSON (with their "@type").
type Operation struct {
	// Name is projects/{project}/locations/{zone}/operations/{id}.
	Name     string          `json:"name,omitempty"`
	Metadata json.RawMessage `json:"metadata,omitempty"`
	Done     bool            `json:"done,omitempty"`
	Error    *Status         `json:"error,omitempty"`
	Response json.RawMessage `json:"response,omitempty"`
}

// Status is a google.rpc.Status: Code is a google.rpc.Code number (5 NOT_FOUND,
// 6 ALREADY_EXISTS, 8 RESOURCE_EXHAUSTED, 9 FAILED_PRECONDITION, 3 INVALID_ARGUMENT ...).
type Status struct {
	Code    int               `json:"code"`
	Message string            `json:"message,omitempty"`
	Details []json.RawMessage `json:"details,omitempty"`
}

// OperationMetadata is the metadata of Lustre operations.
type OperationMetadata struct {
	Type                  string `json:"@type,omitempty"`
	CreateTime            string `json:"createTime,omitempty"`
	EndTime               string `json:"endTime,omitempty"`
	Target                string `json:"target,omitempty"`
	Verb                  string `json:"verb,omitempty"`
	RequestedCancellation bool   `json:"requestedCancellation,omitempty"`
	APIVersion            string `json:"apiVersion,omitempty"`
}

// AnyJSON encodes v (a JSON object) as a google.protobuf.Any: the object with an
// "@type" member added. A nil v gives an empty message of that type.
func AnyJSON(typeURL string, v any) (json.RawMessage, error) {
	fields := map[string]json.RawMessage{}
	if v != nil {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, &fields); err != nil {
			return nil, fmt.Errorf("Any value must be a JSON object: %w", err)
		}
	}
	t, _ := json.Marshal(typeURL)
	fields["@type"] = t
	return json.Marshal(fields)
}

// AnyTypeURL returns the "@type" of a JSON-encoded Any, or "" if there is none.
func AnyTypeURL(raw json.RawMessage) string {
	var a struct {
		Type string `json:"@type"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &a) != nil {
		return ""
	}
	return a.Type
}

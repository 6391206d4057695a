package lustre

import (
	"encoding/json"
	"strconv"
)

// The Managed Lustre v1 wire format as the REST reference (lustre.googleapis.com/v1) defines it. The emulator
// keeps its own copy rather than the provider client's types, so a field the client misnames is answered as
// Google would (ignored, or missing) instead of being confirmed by a shared struct; provider_clients_test.go
// round-trips the provider's client against these.

// Type URLs of the messages inside google.protobuf.Any fields.
const (
	instanceTypeURL = "type.googleapis.com/google.cloud.lustre.v1.Instance"
	metadataTypeURL = "type.googleapis.com/google.cloud.lustre.v1.OperationMetadata"
	emptyTypeURL    = "type.googleapis.com/google.protobuf.Empty"
)

// Instance.state values the emulator sets.
const (
	stateCreating = "CREATING"
	stateActive   = "ACTIVE"
)

// Instance is google.cloud.lustre.v1.Instance. Its int64 fields travel as JSON strings (proto3 JSON mapping);
// bare numbers, which curl users send, are read too.
type Instance struct {
	Name                     string            `json:"name,omitempty"`
	Filesystem               string            `json:"filesystem,omitempty"`
	CapacityGib              int64             `json:"capacityGib,omitempty,string"`
	Network                  string            `json:"network,omitempty"`
	State                    string            `json:"state,omitempty"`
	MountPoint               string            `json:"mountPoint,omitempty"`
	CreateTime               string            `json:"createTime,omitempty"`
	UpdateTime               string            `json:"updateTime,omitempty"`
	Description              string            `json:"description,omitempty"`
	Labels                   map[string]string `json:"labels,omitempty"`
	PerUnitStorageThroughput int64             `json:"perUnitStorageThroughput,omitempty,string"`
	GkeSupportEnabled        bool              `json:"gkeSupportEnabled,omitempty"`
	KmsKey                   string            `json:"kmsKey,omitempty"`
	StateReason              string            `json:"stateReason,omitempty"`
	UID                      string            `json:"uid,omitempty"`
}

// int64Fields are the Instance fields proto3 JSON sends as strings.
var int64Fields = []string{"capacityGib", "perUnitStorageThroughput"}

// UnmarshalJSON quotes bare numbers in the int64 fields, then decodes as the struct tags say.
func (i *Instance) UnmarshalJSON(b []byte) error {
	type tagged Instance
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return err
	}
	for _, f := range int64Fields {
		if v := fields[f]; len(v) > 0 && v[0] != '"' && string(v) != "null" {
			fields[f] = json.RawMessage(strconv.Quote(string(v)))
		}
	}
	norm, err := json.Marshal(fields)
	if err != nil {
		return err
	}
	return json.Unmarshal(norm, (*tagged)(i))
}

// operationMetadata is google.cloud.lustre.v1.OperationMetadata.
type operationMetadata struct {
	Type                  string `json:"@type"`
	CreateTime            string `json:"createTime,omitempty"`
	EndTime               string `json:"endTime,omitempty"`
	Target                string `json:"target,omitempty"`
	Verb                  string `json:"verb,omitempty"`
	RequestedCancellation bool   `json:"requestedCancellation"`
	APIVersion            string `json:"apiVersion,omitempty"`
}

package storage

import (
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// KindNotifications holds buckets' Pub/Sub notification configurations; key
// projects/_/buckets/{bucket}/notificationConfigs/{id}, value a Notification.
const KindNotifications = "storage.notificationConfigs"

// Notification is the JSON API's notification resource (its fields are snake_case on the wire).
type Notification struct {
	Kind             string            `json:"kind"`
	ID               string            `json:"id"`
	SelfLink         string            `json:"selfLink"`
	Topic            string            `json:"topic"`
	EventTypes       []string          `json:"event_types,omitempty"`
	CustomAttributes map[string]string `json:"custom_attributes,omitempty"`
	PayloadFormat    string            `json:"payload_format"`
	ObjectNamePrefix string            `json:"object_name_prefix,omitempty"`
	Etag             string            `json:"etag"`
}

var (
	topicName      = regexp.MustCompile(`^(?://pubsub\.googleapis\.com/)?projects/([a-z][-a-z0-9.:]{4,61}[a-z0-9]|[0-9]+)/topics/([A-Za-z][-A-Za-z0-9._~%+]{2,254})$`)
	eventTypes     = map[string]bool{"OBJECT_FINALIZE": true, "OBJECT_METADATA_UPDATE": true, "OBJECT_DELETE": true, "OBJECT_ARCHIVE": true}
	payloadFormats = map[string]bool{"JSON_API_V1": true, "NONE": true}
)

func notificationPrefix(bucket string) string { return bucketKey(bucket) + "/notificationConfigs/" }

func (s *Service) registerNotifications(bucket string) {
	h := s.Router.Handle
	n := bucket + "/notificationConfigs"
	h("POST "+n, "storage.notifications.insert", core.Mutating, s.insertNotification)
	h("GET "+n, "storage.notifications.list", core.Read, s.listNotifications)
	h("GET "+n+"/{notification}", "storage.notifications.get", core.Read, s.getNotification)
	h("DELETE "+n+"/{notification}", "storage.notifications.delete", core.Mutating, s.deleteNotification)
}

func (s *Service) insertNotification(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("bucket")
	var req Notification
	if err := decode(r, &req); err != nil {
		writeError(w, err)
		return
	}
	if err := req.check(); err != nil {
		writeError(w, err)
		return
	}
	var out Notification
	err := s.Store.Update(func(tx *core.Tx) error {
		if !tx.Exists(KindBuckets, bucketKey(name)) {
			return bucketNotFound()
		}
		// Ids count up per bucket, from 1.
		next := 1
		for _, rec := range tx.List(KindNotifications, notificationPrefix(name)) {
			if n, err := strconv.Atoi(strings.TrimPrefix(rec.Key, notificationPrefix(name))); err == nil && n >= next {
				next = n + 1
			}
		}
		id := strconv.Itoa(next)
		out = req
		out.Kind, out.ID, out.Etag = "storage#notification", id, id
		out.SelfLink = selfLink(name) + "/notificationConfigs/" + id
		if !strings.HasPrefix(out.Topic, "//") {
			out.Topic = "//pubsub.googleapis.com/" + out.Topic
		}
		return tx.Put(KindNotifications, notificationPrefix(name)+id, &out)
	})
	if err != nil {
		writeError(w, err)
		return
	}
	core.WriteJSON(w, http.StatusOK, out)
}

// check validates a notification the way the API does: a topic, a known payload format and event types.
func (n *Notification) check() error {
	if n.Topic == "" {
		return badRequest("required", "Required")
	}
	if !topicName.MatchString(n.Topic) {
		return badRequest("invalid", fmt.Sprintf("Invalid Google Cloud Pub/Sub topic. It should look like '//pubsub.googleapis.com/projects/*/topics/*'; got '%s'.", n.Topic))
	}
	if n.PayloadFormat == "" {
		return badRequest("required", "Required")
	}
	if !payloadFormats[n.PayloadFormat] {
		return badRequest("invalid", fmt.Sprintf("Invalid value for payload_format: '%s'. It must be JSON_API_V1 or NONE.", n.PayloadFormat))
	}
	for _, t := range n.EventTypes {
		if !eventTypes[t] {
			return badRequest("invalid", fmt.Sprintf("Invalid value for event_types: '%s'.", t))
		}
	}
	return nil
}

func (s *Service) listNotifications(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("bucket")
	if _, err := s.bucket(name); err != nil {
		writeError(w, err)
		return
	}
	out := struct {
		Kind  string         `json:"kind"`
		Items []Notification `json:"items,omitempty"`
	}{Kind: "storage#notifications"}
	for _, rec := range s.Store.List(KindNotifications, notificationPrefix(name)) {
		var n Notification
		if rec.Decode(&n) == nil {
			out.Items = append(out.Items, n)
		}
	}
	sort.Slice(out.Items, func(i, j int) bool {
		a, _ := strconv.Atoi(out.Items[i].ID)
		b, _ := strconv.Atoi(out.Items[j].ID)
		return a < b
	})
	core.WriteJSON(w, http.StatusOK, out)
}

func (s *Service) getNotification(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("bucket")
	if _, err := s.bucket(name); err != nil {
		writeError(w, err)
		return
	}
	var n Notification
	if ok, _ := s.Store.Get(KindNotifications, notificationPrefix(name)+r.PathValue("notification"), &n); !ok {
		writeError(w, notificationNotFound(r.PathValue("notification")))
		return
	}
	core.WriteJSON(w, http.StatusOK, n)
}

func (s *Service) deleteNotification(w http.ResponseWriter, r *http.Request) {
	name, id := r.PathValue("bucket"), r.PathValue("notification")
	err := s.Store.Update(func(tx *core.Tx) error {
		if !tx.Exists(KindBuckets, bucketKey(name)) {
			return bucketNotFound()
		}
		if !tx.Delete(KindNotifications, notificationPrefix(name)+id) {
			return notificationNotFound(id)
		}
		return nil
	})
	if err != nil {
		writeError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func notificationNotFound(id string) error {
	return &core.APIError{Code: http.StatusNotFound, Reason: "notFound", Message: fmt.Sprintf("Notification configuration %s not found.", id)}
}

package compute

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

func init() { addRoutes(imageMutationRoutes) }

func imageMutationRoutes(s *Service) {
	p := prefix + "/global/images"
	s.handle("PATCH "+p+"/{image}", "compute.images.patch", core.Mutating, s.patchImage)
	s.handle("POST "+p+"/{image}/setLabels", "compute.images.setLabels", core.Mutating, s.setImageLabels)
}

// imagePatchable are the fields images.patch changes (the API reference: family, description and deprecation
// status); the output fields a client echoes back from a GET are accepted when unchanged.
var imagePatchable = []string{"family", "description", "deprecated"}

// customImage loads a user's image; Google's public images answer 403 (the caller does not own them).
func (s *Service) customImage(w http.ResponseWriter, r *http.Request, permission string) (string, *computepb.Image, bool) {
	key := "projects/" + r.PathValue("project") + "/global/images/" + r.PathValue("image")
	var img computepb.Image
	if ok, _ := s.Store.Get(KindImages, key, &img); !ok {
		if _, public := publicImage(r.PathValue("project"), r.PathValue("image")); public {
			fail(w, r, forbidden(permission, key))
		} else {
			fail(w, r, core.NotFound(key))
		}
		return "", nil, false
	}
	return key, &img, true
}

func (s *Service) patchImage(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		fail(w, r, core.BadRequest("parseError", "Could not read request body: "+err.Error()))
		return
	}
	var fields map[string]json.RawMessage
	var patch computepb.Image
	if json.Unmarshal(raw, &fields) != nil || core.Decode(raw, &patch) != nil {
		fail(w, r, core.BadRequest("parseError", "Invalid JSON payload received."))
		return
	}
	key, img, ok := s.customImage(w, r, "compute.images.update")
	if !ok {
		return
	}
	current, _ := core.Encode(img)
	var cur map[string]json.RawMessage
	_ = json.Unmarshal(current, &cur)
	var refused []string
	for f, v := range fields {
		if !slices.Contains(imagePatchable, f) && string(cur[f]) != compactJSON(v) {
			refused = append(refused, f)
		}
	}
	if len(refused) > 0 {
		sort.Strings(refused)
		fail(w, r, core.InvalidField(refused[0], "", "Only family, description and deprecated can be changed by images.patch."))
		return
	}
	if f := patch.GetFamily(); f != "" {
		if e := core.ValidateName("resource.family", f); e != nil {
			fail(w, r, e)
			return
		}
	}
	if st := patch.GetDeprecated().GetState(); st != "" && !slices.Contains([]string{"ACTIVE", "DEPRECATED", "OBSOLETE", "DELETED"}, st) {
		fail(w, r, core.InvalidField("resource.deprecated.state", st, "Must be one of ACTIVE, DEPRECATED, OBSOLETE, DELETED."))
		return
	}
	answerOp(w, s.opFor(r, key, "patch", img.GetId(), func(tx *core.Tx, _ *computepb.Operation) error {
		var cur computepb.Image
		if ok, _ := tx.Get(KindImages, key, &cur); !ok {
			return core.OpNotFound(key)
		}
		if _, ok := fields["family"]; ok {
			cur.Family = patch.Family
		}
		if _, ok := fields["description"]; ok {
			cur.Description = proto.String(patch.GetDescription())
		}
		if _, ok := fields["deprecated"]; ok {
			cur.Deprecated = patch.Deprecated
			if cur.Deprecated.GetState() == "ACTIVE" {
				cur.Deprecated = nil
			}
		}
		return tx.Put(KindImages, key, &cur)
	}))
}

func compactJSON(v json.RawMessage) string {
	var x any
	if json.Unmarshal(v, &x) != nil {
		return string(v)
	}
	b, _ := json.Marshal(x)
	return string(b)
}

func (s *Service) setImageLabels(w http.ResponseWriter, r *http.Request) {
	var req computepb.GlobalSetLabelsRequest
	if !decode(w, r, &req) {
		return
	}
	key, img, ok := s.customImage(w, r, "compute.images.setLabels")
	if !ok {
		return
	}
	current := img.GetLabelFingerprint()
	if req.GetLabelFingerprint() != current {
		fail(w, r, core.ConditionNotMet(staleLabelFingerprint))
		return
	}
	if err := catalog.ValidateLabels(req.GetLabels()); err != nil {
		fail(w, r, core.Invalid(fmt.Sprintf("Invalid value for field 'labels': %v", err)))
		return
	}
	answerOp(w, s.opFor(r, key, "setLabels", img.GetId(), func(tx *core.Tx, _ *computepb.Operation) error {
		var cur computepb.Image
		if ok, _ := tx.Get(KindImages, key, &cur); !ok {
			return core.OpNotFound(key)
		}
		if cur.GetLabelFingerprint() != current {
			return core.NewOpError(412, "CONDITION_NOT_MET", staleLabelFingerprint)
		}
		cur.Labels = req.GetLabels()
		cur.LabelFingerprint = proto.String(s.newFingerprint())
		return tx.Put(KindImages, key, &cur)
	}))
}

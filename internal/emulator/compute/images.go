package compute

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// KindImages holds custom images of users' projects (projects/P/global/images/N). Google's public images are
// not stored: images_public.go serves them.
const KindImages = "compute.images"

// Reader is what image and disk lookups read: the store, or an open transaction.
type Reader interface {
	GetRaw(kind, key string) (json.RawMessage, bool)
	List(kind, prefix string) []core.Record
}

func init() { addRoutes(imageRoutes) }

func imageRoutes(s *Service) {
	p := prefix + "/global/images"
	s.handle("GET "+p, "compute.images.list", core.Read, s.listImages)
	s.handle("GET "+p+"/{image}", "compute.images.get", core.Read, func(w http.ResponseWriter, r *http.Request) {
		key := "projects/" + r.PathValue("project") + "/global/images/" + r.PathValue("image")
		img, err := LookupImage(s.Store, key)
		if err != nil {
			fail(w, r, err)
			return
		}
		core.WriteJSON(w, http.StatusOK, img)
	})
	s.handle("GET "+p+"/family/{family}", "compute.images.getFromFamily", core.Read, func(w http.ResponseWriter, r *http.Request) {
		key := "projects/" + r.PathValue("project") + "/global/images/family/" + r.PathValue("family")
		img, err := LookupImage(s.Store, key)
		if err != nil {
			fail(w, r, err)
			return
		}
		core.WriteJSON(w, http.StatusOK, img)
	})
	s.handle("POST "+p, "compute.images.insert", core.Mutating, s.insertImage)
	s.handle("DELETE "+p+"/{image}", "compute.images.delete", core.Mutating, s.deleteImage)
}

// ResolveImageRef turns an image reference as instances, templates and disks carry it (full URL,
// "projects/P/global/images/N", "projects/P/global/images/family/F", "global/images/..." in the caller's
// project) into its relative path; anything else is Compute's 400 "The URL is malformed." for field.
func ResolveImageRef(project, field, ref string) (string, *core.APIError) {
	rel := core.RelativePath(ref)
	if strings.HasPrefix(rel, "global/images/") {
		rel = "projects/" + project + "/" + rel
	}
	parts := strings.Split(rel, "/")
	ok := len(parts) >= 5 && parts[0] == "projects" && parts[1] != "" && parts[2] == "global" && parts[3] == "images" &&
		(len(parts) == 5 && parts[4] != "" || len(parts) == 6 && parts[4] == "family" && parts[5] != "")
	if !ok {
		return "", core.InvalidField(field, ref, "The URL is malformed.")
	}
	return rel, nil
}

// LookupImage answers the image at a relative path (projects/P/global/images/N or .../images/family/F): a
// public image, or a custom one of the store; the family form gives the family's newest READY image.
func LookupImage(st Reader, rel string) (*computepb.Image, *core.APIError) {
	parts := strings.Split(rel, "/")
	if len(parts) < 5 {
		return nil, core.NotFound(rel)
	}
	project := parts[1]
	if len(parts) == 6 && parts[4] == "family" {
		if img, ok := publicFamilyImage(project, parts[5]); ok {
			return img, nil
		}
		var newest *computepb.Image
		for _, rec := range st.List(KindImages, "projects/"+project+"/global/images/") {
			var img computepb.Image
			if rec.Decode(&img) == nil && img.GetFamily() == parts[5] && img.GetStatus() == "READY" &&
				img.GetDeprecated().GetState() == "" && (newest == nil || img.GetCreationTimestamp() >= newest.GetCreationTimestamp()) {
				newest = &img
			}
		}
		if newest == nil {
			return nil, core.NotFound(rel)
		}
		return newest, nil
	}
	if img, ok := publicImage(project, parts[4]); ok {
		return img, nil
	}
	if b, ok := st.GetRaw(KindImages, rel); ok {
		var img computepb.Image
		if core.Decode(b, &img) == nil {
			return &img, nil
		}
	}
	return nil, core.NotFound(rel)
}

func (s *Service) listImages(w http.ResponseWriter, r *http.Request) {
	project := r.PathValue("project")
	collection := "projects/" + project + "/global/images"
	recs := s.Store.List(KindImages, collection+"/")
	if isPublicImageProject(project) {
		var keys []string
		var msgs []proto.Message
		for _, img := range publicImages(project) {
			keys = append(keys, core.RelativePath(img.GetSelfLink()))
			msgs = append(msgs, img)
		}
		recs = asRecords(keys, msgs)
	}
	items, next, err := core.Page(r, recs)
	if err != nil {
		fail(w, r, err)
		return
	}
	core.WriteJSON(w, http.StatusOK, listBody("compute#imageList", collection, items, next))
}

// insertImage creates a custom image from a disk (sourceDisk), another image (sourceImage) or an uploaded
// archive (rawDisk.source).
func (s *Service) insertImage(w http.ResponseWriter, r *http.Request) {
	project := r.PathValue("project")
	var img computepb.Image
	if !decode(w, r, &img) {
		return
	}
	if e := core.ValidateName("resource.name", img.GetName()); e != nil {
		fail(w, r, e)
		return
	}
	key := "projects/" + project + "/global/images/" + img.GetName()
	if isPublicImageProject(project) {
		fail(w, r, forbidden("compute.images.create", key))
		return
	}
	if _, exists := s.Store.GetRaw(KindImages, key); exists {
		fail(w, r, core.AlreadyExists(key))
		return
	}
	if f := img.GetFamily(); f != "" {
		if e := core.ValidateName("resource.family", f); e != nil {
			fail(w, r, e)
			return
		}
	}
	arch, size := img.GetArchitecture(), img.GetDiskSizeGb()
	switch {
	case img.GetSourceDisk() != "":
		dk := resolveRef(project, "zones/-", "disks", img.GetSourceDisk())
		var d computepb.Disk
		if ok, _ := s.Store.Get(KindDisks, dk, &d); !ok {
			fail(w, r, core.NotFound(dk))
			return
		}
		img.SourceDisk = proto.String(d.GetSelfLink())
		img.SourceDiskId = proto.String(uintString(d.GetId()))
		img.SourceType = proto.String("RAW")
		arch, size = firstOf(arch, d.GetArchitecture()), d.GetSizeGb()
	case img.GetSourceImage() != "":
		rel, apiErr := ResolveImageRef(project, "resource.sourceImage", img.GetSourceImage())
		if apiErr != nil {
			fail(w, r, apiErr)
			return
		}
		src, apiErr := LookupImage(s.Store, rel)
		if apiErr != nil {
			fail(w, r, apiErr)
			return
		}
		img.SourceImage = proto.String(src.GetSelfLink())
		img.SourceImageId = proto.String(uintString(src.GetId()))
		arch, size = firstOf(arch, src.GetArchitecture()), src.GetDiskSizeGb()
	case img.GetRawDisk().GetSource() != "":
		img.SourceType = proto.String("RAW")
		if size == 0 {
			size = 10
		}
	default:
		fail(w, r, core.Required("resource.rawDisk.source"))
		return
	}
	id, created, selfLink := s.newMeta(KindImages, key)
	img.Kind = proto.String("compute#image")
	img.Id = proto.Uint64(id)
	img.CreationTimestamp = proto.String(created)
	img.SelfLink = proto.String(selfLink)
	img.Status = proto.String("READY")
	img.DiskSizeGb = proto.Int64(size)
	img.ArchiveSizeBytes = proto.Int64(size << 28)
	img.Architecture = proto.String(firstOf(arch, "X86_64"))
	img.LabelFingerprint = proto.String(s.newFingerprint())
	img.StorageLocations = []string{"us"}
	if img.Description == nil {
		img.Description = proto.String("")
	}
	op := s.opFor(r, key, "insert", id, func(tx *core.Tx, _ *computepb.Operation) error {
		if tx.Exists(KindImages, key) {
			return core.OpAlreadyExists(key)
		}
		return tx.Put(KindImages, key, &img)
	})
	answerOp(w, op)
}

func (s *Service) deleteImage(w http.ResponseWriter, r *http.Request) {
	key := "projects/" + r.PathValue("project") + "/global/images/" + r.PathValue("image")
	var img computepb.Image
	if ok, _ := s.Store.Get(KindImages, key, &img); !ok {
		if _, public := publicImage(r.PathValue("project"), r.PathValue("image")); public {
			fail(w, r, forbidden("compute.images.delete", key))
			return
		}
		fail(w, r, core.NotFound(key))
		return
	}
	op := s.opFor(r, key, "delete", img.GetId(), func(tx *core.Tx, _ *computepb.Operation) error {
		if !tx.Delete(KindImages, key) {
			return core.OpNotFound(key)
		}
		return nil
	})
	answerOp(w, op)
}

// forbidden is Compute's 403 for writing to a project one does not own (Google's public image projects).
func forbidden(permission, key string) *core.APIError {
	return &core.APIError{Code: http.StatusForbidden, Reason: "forbidden", Message: "Required '" + permission + "' permission for '" + key + "'"}
}

func uintString(v uint64) string { return strconv.FormatUint(v, 10) }

func firstOf(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

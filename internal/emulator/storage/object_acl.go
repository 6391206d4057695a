package storage

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// KindObjectACLs holds the ACL of object generations whose ACL was changed through objectAccessControls;
// key projects/_/buckets/{bucket}/objectAcls/{generation}/{object}, value []AccessControl. An object without a
// record has the bucket's default object ACL (what a new object gets).
const KindObjectACLs = "storage.objectAcls"

func objectACLKey(bucket, object string, generation int64) string {
	return bucketKey(bucket) + "/objectAcls/" + strconv.FormatInt(generation, 10) + "/" + object
}

// objectACLEntry renders an object ACL entry as the API answers it.
func objectACLEntry(a AccessControl, bucket, object string, generation int64, etag string) map[string]any {
	w := a.wire(defaultObjectACL, bucket, etag)
	gen := strconv.FormatInt(generation, 10)
	m := map[string]any{
		"kind": "storage#objectAccessControl", "id": bucket + "/" + object + "/" + gen + "/" + a.Entity,
		"selfLink": selfLink(bucket) + "/o/" + url.PathEscape(object) + "/acl/" + url.PathEscape(a.Entity),
		"bucket":   bucket, "object": object, "generation": gen, "entity": a.Entity, "role": a.Role, "etag": w.Etag,
	}
	if w.ProjectTeam != nil {
		m["projectTeam"] = w.ProjectTeam
	}
	if w.Email != "" {
		m["email"] = w.Email
	}
	if w.Domain != "" {
		m["domain"] = w.Domain
	}
	return m
}

func (s *Service) registerObjectACLs(object string) {
	h := s.Router.Handle
	const id = "storage.objectAccessControls."
	h("GET "+object+"/acl", id+"list", core.Read, s.listObjectACL)
	h("POST "+object+"/acl", id+"insert", core.Mutating, func(w http.ResponseWriter, r *http.Request) { s.putObjectACL(w, r, "") })
	one := object + "/acl/{entity}"
	h("GET "+one, id+"get", core.Read, s.getObjectACL)
	h("DELETE "+one, id+"delete", core.Mutating, s.deleteObjectACL)
	h("PATCH "+one, id+"patch", core.Mutating, func(w http.ResponseWriter, r *http.Request) { s.putObjectACL(w, r, r.PathValue("entity")) })
	h("PUT "+one, id+"update", core.Mutating, func(w http.ResponseWriter, r *http.Request) { s.putObjectACL(w, r, r.PathValue("entity")) })
}

// objectRef is the object generation an ACL call names, with its ACL.
type objectRef struct {
	bucket     *Bucket
	name       string
	generation int64
	etag       string
	acl        []AccessControl
}

// objectForACL resolves the bucket and object (the generation parameter, else the live one) of an ACL call.
// A bucket with uniform bucket-level access answers the API's 400 for the legacy ACL.
func (s *Service) objectForACL(r Reader, req *http.Request, change bool) (*objectRef, error) {
	var b Bucket
	name := req.PathValue("bucket")
	if ok, _ := r.Get(KindBuckets, bucketKey(name), &b); !ok {
		return nil, bucketNotFound()
	}
	if b.uniformAccess() {
		const more = " Read more at https://cloud.google.com/storage/docs/uniform-bucket-level-access."
		if change {
			return nil, badRequest("invalid", "Cannot insert legacy ACL for an object when uniform bucket-level access is enabled."+more)
		}
		return nil, badRequest("invalid", "Cannot get legacy ACL for an object when uniform bucket-level access is enabled."+more)
	}
	object := req.PathValue("object")
	want := req.URL.Query().Get("generation")
	objs, _ := s.objects.Load().Backend().ListObjects(name, object, want != "")
	for _, o := range objs {
		if o.Name != object || (want != "" && strconv.FormatInt(o.Generation, 10) != want) {
			continue
		}
		ref := &objectRef{bucket: &b, name: object, generation: o.Generation, etag: objectEtag(strconv.FormatInt(o.Generation, 10), "1")}
		ref.acl = b.DefaultObjectACL
		var kept []AccessControl
		if ok, _ := r.Get(KindObjectACLs, objectACLKey(name, object, o.Generation), &kept); ok {
			ref.acl = kept
		}
		return ref, nil
	}
	return nil, &core.APIError{Code: http.StatusNotFound, Reason: "notFound", Message: "No such object: " + name + "/" + object}
}

// Reader is read access to the store inside or outside a transaction.
type Reader interface {
	Get(kind, key string, v any) (bool, error)
}

func (s *Service) listObjectACL(w http.ResponseWriter, r *http.Request) {
	ref, err := s.objectForACL(s.Store, r, false)
	if err != nil {
		writeError(w, err)
		return
	}
	items := []map[string]any{}
	for _, a := range ref.acl {
		items = append(items, objectACLEntry(a, ref.bucket.Name, ref.name, ref.generation, ref.etag))
	}
	core.WriteJSON(w, http.StatusOK, map[string]any{"kind": "storage#objectAccessControls", "items": items})
}

func (s *Service) getObjectACL(w http.ResponseWriter, r *http.Request) {
	ref, err := s.objectForACL(s.Store, r, false)
	if err != nil {
		writeError(w, err)
		return
	}
	for _, a := range ref.acl {
		if a.Entity == r.PathValue("entity") {
			core.WriteJSON(w, http.StatusOK, objectACLEntry(a, ref.bucket.Name, ref.name, ref.generation, ref.etag))
			return
		}
	}
	writeError(w, aclNotFound())
}

// putObjectACL serves insert and patch/update of entity; each sets the entity's role, adding it when missing.
func (s *Service) putObjectACL(w http.ResponseWriter, r *http.Request, entity string) {
	var req AccessControl
	if err := decode(r, &req); err != nil {
		writeError(w, err)
		return
	}
	if entity == "" {
		entity = req.Entity
	}
	if entity == "" || req.Role == "" {
		writeError(w, badRequest("required", "Required"))
		return
	}
	if err := checkACL(defaultObjectACL, []AccessControl{{Entity: entity, Role: req.Role}}); err != nil {
		writeError(w, err)
		return
	}
	var out map[string]any
	err := s.changeObjectACL(r, func(acl []AccessControl) ([]AccessControl, error) {
		for i := range acl {
			if acl[i].Entity == entity {
				acl[i].Role = req.Role
				return acl, nil
			}
		}
		return append(acl, AccessControl{Entity: entity, Role: req.Role}), nil
	}, func(ref *objectRef) {
		out = objectACLEntry(AccessControl{Entity: entity, Role: req.Role}, ref.bucket.Name, ref.name, ref.generation, ref.etag)
	})
	if err != nil {
		writeError(w, err)
		return
	}
	core.WriteJSON(w, http.StatusOK, out)
}

func (s *Service) deleteObjectACL(w http.ResponseWriter, r *http.Request) {
	entity := r.PathValue("entity")
	err := s.changeObjectACL(r, func(acl []AccessControl) ([]AccessControl, error) {
		for i := range acl {
			if acl[i].Entity == entity {
				return append(acl[:i:i], acl[i+1:]...), nil
			}
		}
		return nil, aclNotFound()
	}, nil)
	if err != nil {
		writeError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Service) changeObjectACL(r *http.Request, change func([]AccessControl) ([]AccessControl, error), done func(*objectRef)) error {
	return s.Store.Update(func(tx *core.Tx) error {
		ref, err := s.objectForACL(tx, r, true)
		if err != nil {
			return err
		}
		acl, err := change(append([]AccessControl(nil), ref.acl...))
		if err != nil {
			return err
		}
		ref.acl = acl
		if done != nil {
			done(ref)
		}
		return tx.Put(KindObjectACLs, objectACLKey(ref.bucket.Name, ref.name, ref.generation), acl)
	})
}

// objectACLs answers an object's acl for projection=full: its own if it was changed, else the bucket's
// default object ACL, in the entries' wire form.
func (s *Service) objectACLs(b *Bucket, object string, generation int64) []map[string]any {
	acl := b.DefaultObjectACL
	var kept []AccessControl
	if ok, _ := s.Store.Get(KindObjectACLs, objectACLKey(b.Name, object, generation), &kept); ok {
		acl = kept
	}
	out := []map[string]any{}
	for _, a := range acl {
		out = append(out, objectACLEntry(a, b.Name, object, generation, objectEtag(strconv.FormatInt(generation, 10), "1")))
	}
	return out
}

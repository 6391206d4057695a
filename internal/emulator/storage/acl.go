package storage

import (
	"net/http"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// registerACLs mounts bucketAccessControls (/b/B/acl) and defaultObjectAccessControls (/b/B/defaultObjectAcl),
// and the objectAccessControls reads (/b/B/o/O/acl) the object server answers.
func (s *Service) registerACLs(bucket string) {
	h := s.Router.Handle
	for kind, c := range map[aclKind]struct{ path, id string }{
		bucketACL:        {bucket + "/acl", "storage.bucketAccessControls."},
		defaultObjectACL: {bucket + "/defaultObjectAcl", "storage.defaultObjectAccessControls."},
	} {
		h("GET "+c.path, c.id+"list", core.Read, func(w http.ResponseWriter, r *http.Request) { s.listACL(w, r, kind) })
		h("POST "+c.path, c.id+"insert", core.Mutating, func(w http.ResponseWriter, r *http.Request) { s.putACL(w, r, kind, "") })
		one := c.path + "/{entity}"
		h("GET "+one, c.id+"get", core.Read, func(w http.ResponseWriter, r *http.Request) { s.getACL(w, r, kind) })
		h("DELETE "+one, c.id+"delete", core.Mutating, func(w http.ResponseWriter, r *http.Request) { s.deleteACL(w, r, kind) })
		for method, id := range map[string]string{"PATCH": "patch", "PUT": "update"} {
			h(method+" "+one, c.id+id, core.Mutating, func(w http.ResponseWriter, r *http.Request) { s.putACL(w, r, kind, r.PathValue("entity")) })
		}
	}
}

func (s *Service) listACL(w http.ResponseWriter, r *http.Request, kind aclKind) {
	b, err := s.aclBucket(r)
	if err != nil {
		writeError(w, err)
		return
	}
	out := struct {
		Kind  string          `json:"kind"`
		Items []AccessControl `json:"items"`
	}{Kind: "storage#bucketAccessControls", Items: []AccessControl{}}
	if kind == defaultObjectACL {
		out.Kind = "storage#objectAccessControls"
	}
	for _, a := range *b.entries(kind) {
		out.Items = append(out.Items, a.wire(kind, b.Name, b.Etag))
	}
	core.WriteJSON(w, http.StatusOK, out)
}

func (s *Service) getACL(w http.ResponseWriter, r *http.Request, kind aclKind) {
	b, err := s.aclBucket(r)
	if err != nil {
		writeError(w, err)
		return
	}
	entity := r.PathValue("entity")
	for _, a := range *b.entries(kind) {
		if a.Entity == entity {
			core.WriteJSON(w, http.StatusOK, a.wire(kind, b.Name, b.Etag))
			return
		}
	}
	writeError(w, aclNotFound())
}

// aclBucket reads the bucket of an ACL read; a bucket with uniform bucket-level access has no legacy ACLs
// to read.
func (s *Service) aclBucket(r *http.Request) (*Bucket, error) {
	b, err := s.bucket(r.PathValue("bucket"))
	if err != nil {
		return nil, err
	}
	if b.uniformAccess() {
		return nil, uniformAccessACL(false)
	}
	return b, nil
}

// putACL serves insert (entity from the body) and patch/update of entity: each sets the entity's role, adding
// the entity when it is not listed (the Go client's ACLHandle.Set is an update). A change is a change of the
// bucket: its metageneration and etag move.
func (s *Service) putACL(w http.ResponseWriter, r *http.Request, kind aclKind, entity string) {
	var req AccessControl
	if err := decode(r, &req); err != nil {
		writeError(w, err)
		return
	}
	if entity == "" {
		entity = req.Entity
	}
	if entity == "" {
		writeError(w, badRequest("required", "Required"))
		return
	}
	if req.Role == "" {
		writeError(w, badRequest("required", "Required"))
		return
	}
	if err := checkACL(kind, []AccessControl{{Entity: entity, Role: req.Role}}); err != nil {
		writeError(w, err)
		return
	}
	var out AccessControl
	err := s.changeACL(r, func(b *Bucket) error {
		list := b.entries(kind)
		for i := range *list {
			if (*list)[i].Entity == entity {
				(*list)[i].Role = req.Role
				return nil
			}
		}
		*list = append(*list, AccessControl{Entity: entity, Role: req.Role})
		return nil
	}, func(b *Bucket) { out = AccessControl{Entity: entity, Role: req.Role}.wire(kind, b.Name, b.Etag) })
	if err != nil {
		writeError(w, err)
		return
	}
	core.WriteJSON(w, http.StatusOK, out)
}

func (s *Service) deleteACL(w http.ResponseWriter, r *http.Request, kind aclKind) {
	entity := r.PathValue("entity")
	err := s.changeACL(r, func(b *Bucket) error {
		list := b.entries(kind)
		for i := range *list {
			if (*list)[i].Entity == entity {
				*list = append((*list)[:i], (*list)[i+1:]...)
				return nil
			}
		}
		return aclNotFound()
	}, nil)
	if err != nil {
		writeError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// changeACL applies change to the bucket of r in one transaction, then calls done with the changed bucket.
func (s *Service) changeACL(r *http.Request, change func(*Bucket) error, done func(*Bucket)) error {
	name := r.PathValue("bucket")
	return s.Store.Update(func(tx *core.Tx) error {
		var b Bucket
		if ok, _ := tx.Get(KindBuckets, bucketKey(name), &b); !ok {
			return bucketNotFound()
		}
		if b.uniformAccess() {
			return uniformAccessACL(true)
		}
		if err := change(&b); err != nil {
			return err
		}
		b.touch(s.Now())
		if done != nil {
			done(&b)
		}
		return tx.Put(KindBuckets, bucketKey(name), &b)
	})
}

func aclNotFound() error {
	return &core.APIError{Code: http.StatusNotFound, Reason: "notFound", Message: "Not Found"}
}

package storage

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// AccessControl is one entry of a bucket's ACL (storage#bucketAccessControl) or of its default object ACL
// (storage#objectAccessControl), as the JSON API answers it. The stored form has only entity and role; the
// answer fills in the rest from the bucket (wire).
type AccessControl struct {
	Kind        string       `json:"kind,omitempty"`
	ID          string       `json:"id,omitempty"`
	SelfLink    string       `json:"selfLink,omitempty"`
	Bucket      string       `json:"bucket,omitempty"`
	Entity      string       `json:"entity"`
	Role        string       `json:"role"`
	Email       string       `json:"email,omitempty"`
	Domain      string       `json:"domain,omitempty"`
	EntityID    string       `json:"entityId,omitempty"`
	Etag        string       `json:"etag,omitempty"`
	ProjectTeam *ProjectTeam `json:"projectTeam,omitempty"`
}

// ProjectTeam names the project role a project-<team>-<number> entity stands for.
type ProjectTeam struct {
	ProjectNumber string `json:"projectNumber"`
	Team          string `json:"team"`
}

// Owner is the bucket's owner entity (project-owners-<number>).
type Owner struct {
	Entity string `json:"entity"`
}

// aclKind tells bucket ACL entries from default object ACL entries: they differ in kind, roles and in the
// id/selfLink/bucket only bucket entries carry.
type aclKind int

const (
	bucketACL aclKind = iota
	defaultObjectACL
)

// defaultACL is what a new bucket gets without predefinedAcl: the project's owners and editors own it, its
// viewers read it (and the same for the objects written into it).
func defaultACL(projectNumber string) []AccessControl {
	return []AccessControl{
		{Entity: "project-owners-" + projectNumber, Role: "OWNER"},
		{Entity: "project-editors-" + projectNumber, Role: "OWNER"},
		{Entity: "project-viewers-" + projectNumber, Role: "READER"},
	}
}

var (
	projectEntity = regexp.MustCompile(`^project-(owners|editors|viewers)-([0-9]+)$`)
	emailEntity   = regexp.MustCompile(`^(user|group)-([^@\s]+@[^@\s]+)$`)
	domainEntity  = regexp.MustCompile(`^domain-([a-z0-9.-]+\.[a-z]{2,})$`)
)

// validEntity is the entity grammar of the API: user-EMAIL, group-EMAIL, domain-DOMAIN,
// project-TEAM-NUMBER, allUsers, allAuthenticatedUsers.
func validEntity(e string) bool {
	return e == "allUsers" || e == "allAuthenticatedUsers" || projectEntity.MatchString(e) ||
		emailEntity.MatchString(e) || domainEntity.MatchString(e)
}

func validRole(kind aclKind, role string) bool {
	switch role {
	case "OWNER", "READER":
		return true
	case "WRITER":
		return kind == bucketACL
	}
	return false
}

// wire is the entry as the API answers it for bucket, whose etag the entry carries.
func (a AccessControl) wire(kind aclKind, bucket, etag string) AccessControl {
	out := AccessControl{Entity: a.Entity, Role: a.Role, Etag: etag, Kind: "storage#objectAccessControl"}
	if kind == bucketACL {
		out.Kind = "storage#bucketAccessControl"
		out.ID = bucket + "/" + a.Entity
		out.SelfLink = selfLink(bucket) + "/acl/" + url.PathEscape(a.Entity)
		out.Bucket = bucket
	}
	if m := projectEntity.FindStringSubmatch(a.Entity); m != nil {
		out.ProjectTeam = &ProjectTeam{ProjectNumber: m[2], Team: m[1]}
	} else if m := emailEntity.FindStringSubmatch(a.Entity); m != nil {
		out.Email = m[2]
	} else if m := domainEntity.FindStringSubmatch(a.Entity); m != nil {
		out.Domain = m[1]
	}
	return out
}

// entries returns the bucket's list of kind (a pointer, so callers can change it).
func (b *Bucket) entries(kind aclKind) *[]AccessControl {
	if kind == bucketACL {
		return &b.ACL
	}
	return &b.DefaultObjectACL
}

// answer is the bucket as a call with projection (noAcl or full) answers it: acl, defaultObjectAcl and owner
// only with full, and never the ACLs of a bucket with uniform bucket-level access (they are kept, inert, until
// it is turned off).
func (b Bucket) answer(full bool) Bucket {
	if !full {
		b.ACL, b.DefaultObjectACL, b.Owner = nil, nil, nil
		return b
	}
	if b.uniformAccess() {
		b.ACL, b.DefaultObjectACL = nil, nil
		return b
	}
	acl := make([]AccessControl, len(b.ACL))
	for i, a := range b.ACL {
		acl[i] = a.wire(bucketACL, b.Name, b.Etag)
	}
	def := make([]AccessControl, len(b.DefaultObjectACL))
	for i, a := range b.DefaultObjectACL {
		def[i] = a.wire(defaultObjectACL, b.Name, b.Etag)
	}
	b.ACL, b.DefaultObjectACL = acl, def
	return b
}

// fullProjection reads the projection parameter; def is the method's default.
func fullProjection(q url.Values, def bool) bool {
	switch strings.ToLower(q.Get("projection")) {
	case "full":
		return true
	case "noacl":
		return false
	}
	return def
}

// checkACL validates entries sent in a body (acl, defaultObjectAcl, or one access control).
func checkACL(kind aclKind, entries []AccessControl) error {
	for _, a := range entries {
		if !validEntity(a.Entity) {
			return badRequest("invalid", fmt.Sprintf("Invalid argument: entity '%s' is not a valid entity (user-EMAIL, group-EMAIL, domain-DOMAIN, project-TEAM-NUMBER, allUsers or allAuthenticatedUsers).", a.Entity))
		}
		if !validRole(kind, a.Role) {
			return badRequest("invalid", fmt.Sprintf("Invalid argument: role '%s' is not a valid role (%s).", a.Role, roleNames(kind)))
		}
	}
	return nil
}

func roleNames(kind aclKind) string {
	if kind == bucketACL {
		return "OWNER, WRITER or READER"
	}
	return "OWNER or READER"
}

// uniformAccessACL is the 400 the API answers for the ACL API on a bucket with uniform bucket-level access.
func uniformAccessACL(change bool) error {
	const more = " Read more at https://cloud.google.com/storage/docs/uniform-bucket-level-access."
	if change {
		return badRequest("invalid", "Cannot use ACL API to update bucket policy when uniform bucket-level access is enabled."+more)
	}
	return badRequest("invalid", "Cannot get legacy ACL for a bucket that has uniform bucket-level access."+more)
}

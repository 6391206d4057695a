package storage

import (
	"fmt"
	"net/url"
)

// predefinedACL is the bucket ACL of a predefinedAcl value.
func predefinedACL(value, number string) ([]AccessControl, bool) {
	owners := AccessControl{Entity: "project-owners-" + number, Role: "OWNER"}
	switch value {
	case "private":
		return []AccessControl{owners}, true
	case "projectPrivate":
		return defaultACL(number), true
	case "publicRead":
		return []AccessControl{owners, {Entity: "allUsers", Role: "READER"}}, true
	case "publicReadWrite":
		return []AccessControl{owners, {Entity: "allUsers", Role: "WRITER"}}, true
	case "authenticatedRead":
		return []AccessControl{owners, {Entity: "allAuthenticatedUsers", Role: "READER"}}, true
	}
	return nil, false
}

// predefinedObjectACL is the default object ACL of a predefinedDefaultObjectAcl value. The object's owner is
// whoever writes it; the local cloud has no callers' identities, so the project's owners stand for it.
func predefinedObjectACL(value, number string) ([]AccessControl, bool) {
	owners := AccessControl{Entity: "project-owners-" + number, Role: "OWNER"}
	switch value {
	case "private", "bucketOwnerFullControl", "bucketOwnerRead":
		return []AccessControl{owners}, true
	case "projectPrivate":
		return defaultACL(number), true
	case "publicRead":
		return []AccessControl{owners, {Entity: "allUsers", Role: "READER"}}, true
	case "authenticatedRead":
		return []AccessControl{owners, {Entity: "allAuthenticatedUsers", Role: "READER"}}, true
	}
	return nil, false
}

// applyPredefined sets the ACLs the predefinedAcl / predefinedDefaultObjectAcl parameters name; it reports
// whether any was given (the answer's projection then defaults to full, as for ACLs in the body).
func applyPredefined(q url.Values, b *Bucket) (bool, error) {
	given := false
	for _, p := range []struct {
		param string
		of    func(string, string) ([]AccessControl, bool)
		into  *[]AccessControl
	}{
		{"predefinedAcl", predefinedACL, &b.ACL},
		{"predefinedDefaultObjectAcl", predefinedObjectACL, &b.DefaultObjectACL},
	} {
		v := q.Get(p.param)
		if v == "" {
			continue
		}
		acl, ok := p.of(v, b.ProjectNumber)
		if !ok {
			return false, badRequest("invalid", fmt.Sprintf("Invalid value for %s: '%s'.", p.param, v))
		}
		if b.uniformAccess() {
			return false, uniformAccessACL(true)
		}
		*p.into, given = acl, true
	}
	return given, nil
}

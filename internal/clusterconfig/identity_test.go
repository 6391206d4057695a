package clusterconfig_test

import (
	"slices"
	"strings"
	"testing"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// Each role takes its own identity; a cluster written before roles had them runs every role as the shared
// one, and its node config hash (what nodes boot with) does not move when the roles are recorded with the
// same identity, so upgrading rolls no node.
func TestIdentityPerRoleAndBefore(t *testing.T) {
	shared := []string{"https://www.googleapis.com/auth/compute"}
	legacy := cc.Cloud{ServiceAccount: "default", Scopes: shared}
	for _, r := range []cc.Role{cc.RoleController, cc.RoleLogin, cc.RoleCompute} {
		if id := legacy.Identity(r); id.Email != "default" || !slices.Equal(id.Scopes, shared) {
			t.Errorf("%s of a cluster without roles: %+v", r, id)
		}
	}
	nodes := cc.Identity{Email: "nodes@p.iam.gserviceaccount.com", Scopes: []string{"https://www.googleapis.com/auth/devstorage.read_write"}}
	roles := legacy
	roles.Identities = &cc.Identities{Controller: cc.Identity{Email: "default", Scopes: shared}, Login: cc.Identity{Email: "default"}, Compute: nodes}
	if id := roles.Identity(cc.RoleCompute); id.Email != nodes.Email || !slices.Equal(id.Scopes, nodes.Scopes) {
		t.Errorf("compute: %+v", id)
	}
	if id := roles.Identity(cc.RoleLogin); len(id.Scopes) != 0 {
		t.Errorf("login: %+v", id)
	}

	hash := func(cloud cc.Cloud) string {
		c := cc.Cluster{Name: "c", Controller: cc.Controller{Hostname: "c-controller"}, Cloud: &cloud,
			Mounts: cc.Mounts{Home: cc.NFSMount{Server: "10.0.0.2", Share: "/home"}},
			Agents: []cc.AgentRef{{Version: "1", Arch: "x86_64", URL: "/opt/agent", SHA256: strings.Repeat("ab", 32)}}}
		h, err := cc.NodeConfigHash(c)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	same := legacy
	same.Identities = &cc.Identities{Controller: cc.Identity{Email: "default", Scopes: shared}, Login: cc.Identity{Email: "default", Scopes: shared},
		Compute: cc.Identity{Email: "default", Scopes: shared}}
	if hash(legacy) != hash(same) {
		t.Error("recording the same identity per role changed the node config hash")
	}
	if hash(legacy) == hash(roles) {
		t.Error("another compute identity left the node config hash as it was")
	}
}

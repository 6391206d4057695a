package metadata

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"

	"cloud.google.com/go/compute/apiv1/computepb"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
)

// account resolves "default" or an email to a service account the VM carries.
func (m *Server) account(key, account string) (*computepb.ServiceAccount, bool) {
	inst, ok := m.inst.Instance(key)
	if !ok {
		return nil, false
	}
	for i, sa := range inst.GetServiceAccounts() {
		if (account == "default" && i == 0) || sa.GetEmail() == account {
			return sa, true
		}
	}
	return nil, false
}

func (m *Server) accountEmail(key, account string) (string, bool) {
	sa, ok := m.account(key, account)
	return sa.GetEmail(), ok
}

// token answers an OAuth access token for the VM's service account, registered with the scopes the VM carries
// now (a ?scopes= query changes nothing), so the emulator's APIs refuse what those scopes do not cover (core.Router.authorize). A VM without a
// service account has no token (404), as on Compute Engine.
func (m *Server) token(w http.ResponseWriter, r *http.Request, key, account string) {
	sa, ok := m.account(key, account)
	if !ok {
		notFound().write(w, false)
		return
	}
	tok, expires := m.srv.Tokens.Mint(key, sa.GetEmail(), sa.GetScopes())
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "expires_in": expires, "token_type": "Bearer"})
}

// identity answers an unsigned, JWT-shaped identity token for ?audience=, with the compute_engine claims when
// format=full.
func (m *Server) identity(w http.ResponseWriter, r *http.Request, key, account string) {
	email, ok := m.accountEmail(key, account)
	if !ok {
		notFound().write(w, false)
		return
	}
	aud := r.URL.Query().Get("audience")
	if aud == "" {
		writeText(w, http.StatusBadRequest, "non-empty audience parameter required\n")
		return
	}
	inst, _ := m.inst.Instance(key)
	project, zone, _, _ := instances.ParseInstanceKey(key)
	now := m.srv.Now()
	claims := map[string]any{
		"aud": aud, "azp": email, "email": email, "email_verified": true, "sub": core.ProjectNumber(email),
		"iss": "https://accounts.google.com", "iat": now.Unix(), "exp": now.Unix() + 3600,
	}
	if r.URL.Query().Get("format") == "full" {
		claims["google"] = map[string]any{"compute_engine": map[string]any{
			"instance_id": strconv.FormatUint(inst.GetId(), 10), "instance_name": inst.GetName(),
			"project_id": project, "project_number": core.ProjectNumber(project), "zone": zone,
		}}
	}
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	jwt := enc(map[string]string{"alg": "none", "typ": "JWT"}) + "." + enc(claims) + "." +
		base64.RawURLEncoding.EncodeToString([]byte("hypercompute-emulator"))
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write([]byte(jwt))
}

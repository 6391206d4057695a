package metadata

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
)

// accountEmail resolves "default" or an email to a service account the VM carries.
func (m *Server) accountEmail(key, account string) (string, bool) {
	inst, ok := m.inst.Instance(key)
	if !ok {
		return "", false
	}
	for i, sa := range inst.GetServiceAccounts() {
		if (account == "default" && i == 0) || sa.GetEmail() == account {
			return sa.GetEmail(), true
		}
	}
	return "", false
}

// token answers a fake OAuth access token. The emulator's APIs accept any credentials (clients are configured
// without authentication), so the token only has to look right to client libraries.
func (m *Server) token(w http.ResponseWriter, r *http.Request, key, account string) {
	email, ok := m.accountEmail(key, account)
	if !ok {
		notFound().write(w, false)
		return
	}
	now := m.srv.Now()
	tok := "ya29.hypercompute-emulator." + core.Fingerprint(key, email, strconv.FormatInt(now.Unix()/3000, 10))
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "expires_in": 3599, "token_type": "Bearer"})
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

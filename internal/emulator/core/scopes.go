package core

import (
	"net/http"
	"slices"
	"strings"
	"unicode"
)

// ScopePrefix starts every Google OAuth scope URL.
const ScopePrefix = "https://www.googleapis.com/auth/"

// scopesFor lists the OAuth scopes (without ScopePrefix) any one of which lets a token call method, a discovery
// id of the given class, as Google's API discovery documents list them per method: cloud-platform covers every
// API, its read-only variant every read; Compute takes compute (compute.readonly for reads); Cloud Storage takes
// devstorage.read_write for data changes, devstorage.read_only for reads, and devstorage.full_control for
// access-control lists; Cloud Monitoring takes monitoring (monitoring.read for reads, monitoring.write for time
// series writes); Filestore, Managed Lustre and Service Networking take only cloud-platform.
func scopesFor(method string, class Class) []string {
	all := []string{"cloud-platform"}
	if class == Read {
		all = append(all, "cloud-platform.read-only")
	}
	api, rest, _ := strings.Cut(method, ".")
	switch api {
	case "compute":
		all = append(all, "compute")
		if class == Read {
			all = append(all, "compute.readonly")
		}
	case "storage":
		all = append(all, "devstorage.full_control")
		if strings.Contains(rest, "AccessControls") {
			break
		}
		all = append(all, "devstorage.read_write")
		if class == Read {
			all = append(all, "devstorage.read_only")
		}
	case "servicenetworking":
		all = append(all, "service.management")
	case "monitoring":
		// Cloud Monitoring: monitoring for everything, monitoring.read for reads, monitoring.write for
		// writing time series and the descriptors writes create (a VM's default scope).
		all = append(all, "monitoring")
		if class == Read {
			all = append(all, "monitoring.read")
		}
		if rest == "projects.timeSeries.create" || rest == "projects.metricDescriptors.create" {
			all = append(all, "monitoring.write")
		}
	}
	return all
}

// Covers reports whether a token holding scopes may call method (a discovery id) of class.
func Covers(scopes []string, method string, class Class) bool {
	for _, want := range scopesFor(method, class) {
		if slices.Contains(scopes, ScopePrefix+want) {
			return true
		}
	}
	return false
}

// authorize checks the request's credentials: none (the owner's tools: the provider, tests) or a bearer token the
// emulator did not mint (the any-token placeholder of Terraform's gcs backend) pass, as the project owner; a token
// minted by a metadata server must be valid (else 401) and hold a scope that covers the method (else 403), as
// Google's front ends check before any API runs.
func (rt *Router) authorize(r *http.Request, route Route) *authError {
	h := r.Header.Get("Authorization")
	if h == "" || rt.tokens == nil {
		return nil
	}
	scheme, tok, _ := strings.Cut(h, " ")
	if !strings.EqualFold(scheme, "Bearer") || !strings.HasPrefix(tok, TokenPrefix) {
		return nil
	}
	grant, ok := rt.tokens.Lookup(tok)
	if !ok {
		return unauthenticated()
	}
	if Covers(grant.Scopes, route.Method, route.Class) {
		return nil
	}
	return insufficientScopes(route.Method)
}

// authError is Google's front-end refusal: both the errors[] of the JSON APIs (Compute, Cloud Storage) and the
// google.rpc status with its details, in one body, as Google sends it.
type authError struct {
	code    int
	message string
	item    map[string]any
	details []any
}

func (e *authError) write(w http.ResponseWriter) {
	body := map[string]any{"code": e.code, "message": e.message, "errors": []any{e.item}, "status": StatusName(e.code)}
	if len(e.details) > 0 {
		body["details"] = e.details
	}
	if e.code == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="https://accounts.google.com/", error="invalid_token"`)
	}
	WriteJSON(w, e.code, map[string]any{"error": body})
}

func unauthenticated() *authError {
	return &authError{
		code: http.StatusUnauthorized,
		message: "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other " +
			"valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.",
		item: map[string]any{"message": "Invalid Credentials", "domain": "global", "reason": "authError",
			"location": "Authorization", "locationType": "header"},
	}
}

func insufficientScopes(method string) *authError {
	service, rpc := rpcName(method)
	return &authError{
		code:    http.StatusForbidden,
		message: "Request had insufficient authentication scopes.",
		item:    map[string]any{"message": "Insufficient Permission", "domain": "global", "reason": "insufficientPermissions"},
		details: []any{map[string]any{
			"@type":  "type.googleapis.com/google.rpc.ErrorInfo",
			"reason": "ACCESS_TOKEN_SCOPE_INSUFFICIENT", "domain": "googleapis.com",
			"metadata": map[string]string{"service": service, "method": rpc},
		}},
	}
}

// rpcName turns a discovery id into the ErrorInfo's service and method: Compute's
// "compute.instances.delete" is compute.googleapis.com's "compute.v1.InstancesService.Delete"; the other APIs keep
// the discovery id.
func rpcName(method string) (string, string) {
	api, rest, _ := strings.Cut(method, ".")
	service := api + ".googleapis.com"
	if api != "compute" {
		return service, method
	}
	resource, verb, ok := strings.Cut(rest, ".")
	if !ok {
		return service, method
	}
	return service, "compute.v1." + upperFirst(resource) + "Service." + upperFirst(verb)
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

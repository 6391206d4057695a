package gcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
	"google.golang.org/api/impersonate"
	"google.golang.org/api/option"
	htransport "google.golang.org/api/transport/http"
)

// authTransport wraps base with the layer that adds OAuth2 tokens, chosen from cfg:
// AccessToken, else Credentials, else Application Default Credentials; then, if asked,
// impersonation of a service account on top. Against an emulator it adds nothing, unless MetadataToken
// asks for the VM's own token.
func authTransport(ctx context.Context, cfg Config, base http.RoundTripper) (http.RoundTripper, error) {
	if cfg.emulated() {
		if cfg.MetadataToken {
			// GCE_METADATA_HOST locates the VM's metadata server, as for every Google client.
			return &oauth2.Transport{Source: oauth2.ReuseTokenSource(nil, google.ComputeTokenSource("")), Base: base}, nil
		}
		return base, nil
	}
	// Token sources keep this context for every later refresh; the provider's Configure
	// context ends long before the clients do.
	ctx = context.WithoutCancel(ctx)
	creds, err := credentialOptions(ctx, cfg)
	if err != nil {
		return nil, err
	}
	opts := append([]option.ClientOption{
		option.WithScopes(CloudPlatformScope),
		option.WithTelemetryDisabled(),
	}, creds...)
	rt, err := htransport.NewTransport(ctx, base, opts...)
	if err != nil {
		return nil, fmt.Errorf("setting up Google Cloud credentials: %w", err)
	}
	return rt, nil
}

func credentialOptions(ctx context.Context, cfg Config) ([]option.ClientOption, error) {
	var opts []option.ClientOption
	switch {
	case cfg.AccessToken != "":
		opts = append(opts, option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{
			AccessToken: cfg.AccessToken, TokenType: "Bearer",
		})))
	case cfg.Credentials != "":
		js, err := credentialsJSON(cfg.Credentials)
		if err != nil {
			return nil, err
		}
		typ, err := credentialsType(js)
		if err != nil {
			return nil, err
		}
		opts = append(opts, option.WithAuthCredentialsJSON(typ, js))
	}
	if cfg.ImpersonateServiceAccount == "" {
		return opts, nil
	}
	ts, err := impersonate.CredentialsTokenSource(ctx, impersonate.CredentialsConfig{
		TargetPrincipal: cfg.ImpersonateServiceAccount,
		Scopes:          []string{CloudPlatformScope},
	}, opts...)
	if err != nil {
		return nil, fmt.Errorf("impersonating %s: %w", cfg.ImpersonateServiceAccount, err)
	}
	return []option.ClientOption{option.WithTokenSource(ts)}, nil
}

// credentialsJSON accepts the document itself or the path of a file holding it.
func credentialsJSON(s string) ([]byte, error) {
	if t := strings.TrimSpace(s); strings.HasPrefix(t, "{") {
		return []byte(t), nil
	}
	path := s
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, fmt.Errorf("reading credentials file %s: %w", s, err)
		}
		path = filepath.Join(home, rest)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading credentials file: %w", err)
	}
	return b, nil
}

// credentialsType reads the document's "type" so it can be loaded as exactly that kind:
// the library refuses to guess, because a guessed external_account file could point
// token requests anywhere.
func credentialsType(js []byte) (option.CredentialsType, error) {
	var doc struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(js, &doc); err != nil {
		return "", fmt.Errorf("credentials are not valid JSON: %w", err)
	}
	switch doc.Type {
	case "service_account":
		return option.ServiceAccount, nil
	case "authorized_user":
		return option.AuthorizedUser, nil
	case "impersonated_service_account":
		return option.ImpersonatedServiceAccount, nil
	case "external_account":
		return option.ExternalAccount, nil
	case "":
		return "", fmt.Errorf(`credentials JSON has no "type" field`)
	default:
		return "", fmt.Errorf("credentials of type %q are not supported", doc.Type)
	}
}

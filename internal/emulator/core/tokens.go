package core

import (
	"crypto/rand"
	"encoding/hex"
	"slices"
	"sync"
	"time"
)

// TokenPrefix starts every access token the emulator's metadata servers mint, so the router can tell a VM's token
// (checked against its scopes) from the any-token placeholders the owner's tools send (Terraform's gcs backend
// needs some access_token; the local cloud has no IAM and treats those as the project owner, like no token).
const TokenPrefix = "ya29.hypercompute-emulator."

// tokenLifetime is how long a minted token is valid, as Compute's metadata server's (expires_in 3599).
const tokenLifetime = time.Hour

// Token is what a minted access token stands for: the VM and service account it was minted for and the scopes
// the VM carried then (Compute binds a token's scopes when it mints it).
type Token struct {
	Instance string // instance key, projects/P/zones/Z/instances/N
	Email    string
	Scopes   []string
	Expires  time.Time
}

// Tokens is the registry of minted access tokens. It lives in memory only: tokens are short-lived and a restarted
// emulator's VMs fetch new ones, as clients do when a token is refused.
type Tokens struct {
	mu  sync.Mutex
	now func() time.Time
	m   map[string]Token
}

func newTokens(now func() time.Time) *Tokens { return &Tokens{now: now, m: map[string]Token{}} }

// Mint returns a token for the VM's service account with these scopes and the seconds it stays valid. Like the
// metadata server, it hands back the same token while it has more than five minutes left.
func (t *Tokens) Mint(instance, email string, scopes []string) (string, int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	for tok, v := range t.m {
		if !now.Before(v.Expires) {
			delete(t.m, tok)
			continue
		}
		if v.Instance == instance && v.Email == email && slices.Equal(v.Scopes, scopes) && v.Expires.Sub(now) > 5*time.Minute {
			return tok, int(v.Expires.Sub(now) / time.Second)
		}
	}
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	tok := TokenPrefix + hex.EncodeToString(b)
	t.m[tok] = Token{Instance: instance, Email: email, Scopes: slices.Clone(scopes), Expires: now.Add(tokenLifetime)}
	return tok, int(tokenLifetime/time.Second) - 1
}

// Lookup returns the token's grant while it is valid.
func (t *Tokens) Lookup(tok string) (Token, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	v, ok := t.m[tok]
	if !ok || !t.now().Before(v.Expires) {
		return Token{}, false
	}
	return v, true
}

func (t *Tokens) reset() {
	t.mu.Lock()
	t.m = map[string]Token{}
	t.mu.Unlock()
}

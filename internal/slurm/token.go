package slurm

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// scontrolBin is the scontrol the package runs; tests point it elsewhere.
var scontrolBin = "scontrol"

// TokenFromScontrol returns a Config.Token that gets JWTs for user from
// `scontrol token username=USER lifespan=SECONDS` (root or SlurmUser only)
// and reuses each one until it is close to expiry. scontrol finds the
// cluster through SLURM_CONF in the process environment, as every Slurm
// command does; without it scontrol tries DNS SRV records and fails.
func TokenFromScontrol(user string, lifespan time.Duration) func(ctx context.Context) (string, error) {
	if lifespan < time.Second {
		lifespan = time.Second
	}
	t := &scontrolToken{user: user, lifespan: lifespan}
	return t.get
}

type scontrolToken struct {
	user     string
	lifespan time.Duration

	mu      sync.Mutex
	token   string
	renewAt time.Time
}

func (t *scontrolToken) get(ctx context.Context) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.token != "" && time.Now().Before(t.renewAt) {
		return t.token, nil
	}
	secs := int64((t.lifespan + time.Second - 1) / time.Second)
	cmd := exec.CommandContext(ctx, scontrolBin, "token", "username="+t.user, fmt.Sprintf("lifespan=%d", secs))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("slurm: scontrol token username=%s: %w: %s", t.user, err,
			strings.TrimSpace(stderr.String()+" "+stdout.String()))
	}
	tok := ""
	for _, line := range strings.Split(stdout.String(), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "SLURM_JWT="); ok {
			tok = v
		}
	}
	if tok == "" {
		return "", fmt.Errorf("slurm: scontrol token printed no SLURM_JWT=: %q", stdout.String())
	}
	now := time.Now()
	expiry := now.Add(t.lifespan)
	if exp, ok := jwtExpiry(tok); ok && exp.Before(expiry) {
		expiry = exp // slurmctld may cap the lifespan
	}
	// Renew a fifth of the lifespan (at most 5 min) early, so a request never
	// carries a token that expires in flight.
	margin := min(expiry.Sub(now)/5, 5*time.Minute)
	t.token, t.renewAt = tok, expiry.Add(-margin)
	return tok, nil
}

// jwtExpiry reads the exp claim without checking the signature (slurmctld does).
func jwtExpiry(tok string) (time.Time, bool) {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return time.Time{}, false
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return time.Time{}, false
	}
	var claims struct {
		Exp int64 `json:"exp"`
	}
	if json.Unmarshal(payload, &claims) != nil || claims.Exp == 0 {
		return time.Time{}, false
	}
	return time.Unix(claims.Exp, 0), true
}

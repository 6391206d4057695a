package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"path"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// restdUser runs slurmrestd, which refuses to run as root.
func restdUser(l cc.Layout) string {
	if l.SlurmUser == "" || l.SlurmUser == "root" {
		return "slurm"
	}
	return l.SlurmUser
}

// ensureRestd runs slurmrestd with JWT authentication and every OpenAPI
// plugin the installed Slurm offers for slurmctld, and waits until it
// answers HTTP.
func (c *controller) ensureRestd(ctx context.Context, cluster cc.Cluster) error {
	l := cluster.Layout
	conf := path.Join(l.ConfDir, cc.SlurmConfFile)
	user := restdUser(l)
	acct, err := lookupAccount(user, "slurm")
	if err != nil {
		return err
	}
	d := daemon{Name: "slurmrestd", User: "root", Env: []string{"SLURM_JWT=daemon"}}
	if !c.sup.running(d.withArgv("/usr/sbin/slurmrestd")) {
		out, err := runAs(ctx, acct, "/usr/sbin/slurmrestd", "-f", conf, "-s", "list")
		plugins, perr := restdPlugins(out)
		if perr != nil {
			return fmt.Errorf("slurmrestd: %w (slurmrestd -s list: %v %s)", perr, err, lastLines(out, 4))
		}
		auth, _ := runAs(ctx, acct, "/usr/sbin/slurmrestd", "-f", conf, "-a", "list")
		if !strings.Contains(auth, "rest_auth/jwt") {
			return fmt.Errorf("slurmrestd offers no rest_auth/jwt plugin (it lists: %s); install Slurm's JWT plugin (Debian: slurm-wlm-jwt-plugin) in the image", strings.TrimSpace(lastLines(auth, 4)))
		}
		d.Argv = []string{"/usr/sbin/slurmrestd", "-f", conf, "-a", "rest_auth/jwt", "-s", strings.Join(plugins, ","),
			"-u", user, "0.0.0.0:" + strconv.Itoa(cc.SlurmrestdPort)}
		if err := c.sup.start(ctx, d); err != nil {
			return fmt.Errorf("starting slurmrestd: %w", err)
		}
	} else {
		d = d.withArgv("/usr/sbin/slurmrestd")
	}
	return waitHTTP(ctx, "127.0.0.1:"+strconv.Itoa(cc.SlurmrestdPort), 20*time.Second, func() string {
		if !c.sup.running(d) {
			return "slurmrestd exited; " + c.sup.describe(d)
		}
		return c.sup.describe(d)
	})
}

// withArgv gives a daemon the program name its running copy is checked by.
func (d daemon) withArgv(program string) daemon {
	if len(d.Argv) == 0 {
		d.Argv = []string{program}
	}
	return d
}

// restdPlugins picks the OpenAPI plugins to load from `slurmrestd -s
// list`: Slurm 23.11+ serves every REST version through openapi/slurmctld;
// older releases have one plugin per version (openapi/v0.0.38 ...). The
// slurmdbd plugins are left out: the cluster has no accounting database.
func restdPlugins(list string) ([]string, error) {
	var versioned []string
	for _, line := range strings.Split(list, "\n") {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "slurmrestd:"))
		if len(f) != 1 || !strings.HasPrefix(f[0], "openapi/") {
			continue
		}
		switch p := f[0]; {
		case p == "openapi/slurmctld":
			return []string{p}, nil
		case strings.HasPrefix(p, "openapi/v"):
			versioned = append(versioned, p)
		}
	}
	if len(versioned) == 0 {
		return nil, errors.New("the installed slurmrestd lists no OpenAPI plugin for slurmctld")
	}
	sort.Sort(sort.Reverse(sort.StringSlice(versioned)))
	return versioned, nil
}

// runAs runs a command as another user and returns its combined output.
func runAs(ctx context.Context, acct account, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(acct.UID), Gid: uint32(acct.GID)}}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// waitHTTP waits until addr answers an HTTP request (any status: an
// unauthenticated request proves the server is up).
func waitHTTP(ctx context.Context, addr string, timeout time.Duration, why func() string) error {
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(timeout)
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/openapi/v3", nil)
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("slurmrestd does not answer on %s: %v; %s", addr, err, why())
		}
		if err := sleepCtx(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
}

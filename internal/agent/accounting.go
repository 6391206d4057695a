package agent

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path"
	"slices"
	"strings"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// Where the controller keeps its accounting database. The datadir is on the controller's boot
// disk; MariaDB listens on 127.0.0.1 only, so nothing but slurmdbd on this VM reaches it.
const (
	mariadbDataDir = "/var/lib/mysql"
	mariadbRunDir  = "/run/mysqld"
	mariadbSocket  = "/run/mysqld/mysqld.sock"
	// accountingSecretDir holds the generated database password, root-only: it never leaves the
	// controller (slurmdbd.conf, the one other copy, is SlurmUser's, mode 0600, as slurmdbd demands).
	accountingSecretDir = "/var/lib/hypercompute/accounting"
	dbPasswordFile      = accountingSecretDir + "/db-password"
	// clientConf is the rendered slurm.conf the agent's sacctmgr and sacct read.
	clientConf = accountingSecretDir + "/slurm.conf"
)

// accountingState remembers the accounting spec whose sacctmgr setup succeeded, so a pass with the
// same spec and running daemons makes no sacctmgr calls, and when goodput was last reported.
type accountingState struct {
	applied     string
	lastGoodput time.Time
}

// accounting starts MariaDB (for a database on the controller) and slurmdbd for the cluster, and
// registers the cluster and its QoS in slurmdbd, all before slurmctld starts: slurmctld with
// accounting exits when it finds no slurmdbd on its first start. sacctmgr and sacct find slurmdbd
// through a copy of the rendered slurm.conf (conf), since the applied one may not exist yet.
func (c *controller) accounting(ctx context.Context, cluster cc.Cluster, slurm account, conf []byte) error {
	if !cluster.AccountingOn() {
		return nil
	}
	a := *cluster.Accounting
	l := cluster.Layout
	var password string
	var err error
	if a.Database.Local() {
		if password, err = c.localDatabase(ctx); err != nil {
			return fmt.Errorf("accounting database: %w", err)
		}
	} else if password, err = readPasswordFile(a.Database.PasswordFile); err != nil {
		return fmt.Errorf("accounting database %s: %w", a.Database.Host, err)
	}
	dbdConf, err := cc.RenderSlurmdbdConf(cluster, password)
	if err != nil {
		return err
	}
	changed, err := writeFile(path.Join(l.ConfDir, cc.SlurmdbdConfFile), dbdConf, 0o600, slurm)
	if err != nil {
		return err
	}
	if err := ensureDir(accountingSecretDir, 0o700, rootAccount); err != nil {
		return err
	}
	if _, err := writeFile(clientConf, conf, 0o600, rootAccount); err != nil {
		return err
	}
	for _, dir := range []string{path.Dir(cc.SlurmdbdLogFile), path.Dir(cc.SlurmdbdPidFile)} {
		if err := ensureDir(dir, 0o755, slurm); err != nil {
			return err
		}
	}
	d := slurmdbdDaemon(l)
	running := c.sup.running(d)
	if changed && running {
		err = c.sup.restart(ctx, d)
	} else if !running {
		err = c.sup.start(ctx, d)
	}
	if err != nil {
		return fmt.Errorf("starting slurmdbd: %w; %s", err, slurmdbdLogTail())
	}
	spec := fmt.Sprintf("%s %v %x", cluster.Name, a.QOS, sha256.Sum256(dbdConf))
	if !running || changed || c.acct.applied != spec {
		if err := c.registerAccounting(ctx, cluster); err != nil {
			return err
		}
		c.acct.applied = spec
	}
	c.reportGoodput(ctx, cluster)
	c.serveReport(ctx, cluster.Name)
	return nil
}

func slurmdbdDaemon(l cc.Layout) daemon {
	return daemon{
		Name: "slurmdbd",
		// slurmdbd reads slurmdbd.conf from SLURM_CONF's directory.
		Argv: []string{"/usr/sbin/slurmdbd", "-D"},
		Env:  slurmEnv(l),
		User: l.SlurmUser,
	}
}

func mariadbDaemon() daemon {
	return daemon{
		Name: "mariadb",
		// --no-defaults: the flags are the whole configuration, whatever the image's /etc/mysql
		// holds. The buffer pool and lock wait follow Slurm's accounting guide.
		Argv: []string{"/usr/sbin/mariadbd", "--no-defaults", "--user=mysql",
			"--datadir=" + mariadbDataDir, "--socket=" + mariadbSocket, "--pid-file=" + mariadbRunDir + "/mariadbd.pid",
			"--bind-address=127.0.0.1", "--port=3306", "--skip-name-resolve",
			"--innodb-buffer-pool-size=128M", "--innodb-lock-wait-timeout=900"},
	}
}

// localDatabase makes MariaDB run on this VM with the accounting database and its user, and
// returns the user's password (generated here on first boot).
func (c *controller) localDatabase(ctx context.Context) (string, error) {
	mysql, err := lookupAccount("mysql", "mariadb-server")
	if err != nil {
		return "", err
	}
	if err := ensureDir(mariadbRunDir, 0o755, mysql); err != nil {
		return "", err
	}
	if err := ensureDir(mariadbDataDir, 0o750, mysql); err != nil {
		return "", err
	}
	if _, err := os.Stat(path.Join(mariadbDataDir, "mysql")); os.IsNotExist(err) {
		// A new boot disk: create the system tables; root logs in through the Unix socket only.
		if out, err := runCommand(ctx, nil, "mariadb-install-db", "--no-defaults", "--user=mysql", "--datadir="+mariadbDataDir,
			"--auth-root-authentication-method=socket", "--skip-test-db"); err != nil {
			return "", fmt.Errorf("initialising %s: %w (%s)", mariadbDataDir, err, lastLines(out, 4))
		}
	}
	d := mariadbDaemon()
	if err := c.sup.start(ctx, d); err != nil {
		return "", fmt.Errorf("starting MariaDB: %w", err)
	}
	if err := waitFor(ctx, 60*time.Second, func() error { _, err := sql(ctx, "SELECT 1"); return err }); err != nil {
		return "", fmt.Errorf("MariaDB does not answer on %s: %w; %s", mariadbSocket, err, c.sup.describe(d))
	}
	password, err := ensureDBPassword()
	if err != nil {
		return "", err
	}
	// The password travels on sql's stdin, never on a command line (ps shows those).
	user := fmt.Sprintf("'%s'@'127.0.0.1'", cc.DefaultDatabaseUser)
	stmt := fmt.Sprintf("CREATE DATABASE IF NOT EXISTS %s;\nCREATE USER IF NOT EXISTS %s IDENTIFIED BY '%s';\nALTER USER %s IDENTIFIED BY '%s';\nGRANT ALL ON %s.* TO %s;\n",
		cc.AccountingDatabaseName, user, password, user, password, cc.AccountingDatabaseName, user)
	if _, err := sql(ctx, stmt); err != nil {
		// MariaDB may quote the statement near its error: never the password.
		return "", fmt.Errorf("creating the accounting database and its user: %s", strings.ReplaceAll(err.Error(), password, "<password>"))
	}
	return password, nil
}

// sql runs statements as MariaDB's root through the socket, statements on stdin.
func sql(ctx context.Context, stmts string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "mariadb", "--no-defaults", "--socket="+mariadbSocket, "-u", "root", "-N", "-B")
	cmd.Stdin = strings.NewReader(stmts)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("mariadb: %v: %s", err, lastLines(strings.TrimSpace(out.String()), 3))
	}
	return strings.TrimSpace(out.String()), nil
}

// ensureDBPassword returns the accounting database's password, generating it on first boot.
func ensureDBPassword() (string, error) {
	if b, err := os.ReadFile(dbPasswordFile); err == nil && len(bytes.TrimSpace(b)) >= 16 {
		return string(bytes.TrimSpace(b)), fixMeta(dbPasswordFile, 0o600, rootAccount)
	}
	if err := ensureDir(accountingSecretDir, 0o700, rootAccount); err != nil {
		return "", err
	}
	raw := make([]byte, 24)
	if _, err := rand.Read(raw); err != nil {
		return "", fmt.Errorf("generating the accounting database password: %w", err)
	}
	// URL-safe base64: nothing SQL quoting or slurmdbd.conf's parser treats specially.
	password := base64.RawURLEncoding.EncodeToString(raw)
	if _, err := writeFile(dbPasswordFile, []byte(password+"\n"), 0o600, rootAccount); err != nil {
		return "", err
	}
	return password, nil
}

// readPasswordFile reads an external database's password from the file the site placed on the
// controller; a file others can read is refused rather than used.
func readPasswordFile(p string) (string, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return "", fmt.Errorf("the password file: %w", err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("the password file %s is readable by others (mode %v); make it 0600", p, fi.Mode().Perm())
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return "", err
	}
	pw := strings.TrimSpace(string(b))
	if pw == "" {
		return "", fmt.Errorf("the password file %s is empty", p)
	}
	return pw, nil
}

// registerAccounting adds the cluster and the QoS list to slurmdbd and grants the QoS to the root
// account, once slurmdbd answers.
func (c *controller) registerAccounting(ctx context.Context, cluster cc.Cluster) error {
	env := []string{"SLURM_CONF=" + clientConf}
	mgr := func(args ...string) (string, error) {
		return runCommand(ctx, env, "sacctmgr", append([]string{"-i", "-n", "-P"}, args...)...)
	}
	var clusters string
	err := waitFor(ctx, 60*time.Second, func() error {
		var err error
		clusters, err = mgr("list", "cluster", "format=cluster")
		return err
	})
	if err != nil {
		return fmt.Errorf("slurmdbd does not answer sacctmgr: %w; %s", err, slurmdbdLogTail())
	}
	if !slices.Contains(strings.Fields(clusters), cluster.Name) {
		if _, err := mgr("add", "cluster", cluster.Name); err != nil {
			return fmt.Errorf("registering cluster %s in slurmdbd: %w", cluster.Name, err)
		}
		c.log.Info("cluster registered in slurmdbd", "cluster", cluster.Name)
	}
	qos, err := mgr("list", "qos", "format=name")
	if err != nil {
		return err
	}
	have := strings.Fields(qos)
	for _, q := range cluster.Accounting.QOS {
		if !slices.Contains(have, q) {
			if _, err := mgr("add", "qos", q); err != nil {
				return fmt.Errorf("adding QoS %s: %w", q, err)
			}
		}
	}
	if len(cluster.Accounting.QOS) > 0 {
		grant := strings.Join(append([]string{"normal"}, cluster.Accounting.QOS...), ",")
		out, err := mgr("modify", "account", "where", "name=root", "cluster="+cluster.Name, "set", "qos="+grant)
		if err != nil && !strings.Contains(out, "Nothing modified") {
			return fmt.Errorf("granting QoS %s to the root account: %w", grant, err)
		}
	}
	return nil
}

// accountingRestart reports whether two slurm.conf files differ in what slurmctld reads only at
// start: its accounting storage and priority plugins.
func accountingRestart(a, b []byte) bool {
	keys := func(conf []byte) []string {
		var out []string
		for _, line := range strings.Split(string(conf), "\n") {
			for _, k := range []string{"AccountingStorage", "JobAcctGatherType=", "PriorityType="} {
				if strings.HasPrefix(line, k) {
					out = append(out, line)
				}
			}
		}
		return out
	}
	return !slices.Equal(keys(a), keys(b))
}

func slurmdbdLogTail() string {
	b, err := os.ReadFile(cc.SlurmdbdLogFile)
	if err != nil || len(b) == 0 {
		return "slurmdbd's log " + cc.SlurmdbdLogFile + " is empty"
	}
	return "slurmdbd's log ends: " + lastLines(string(b), 5)
}

// waitFor retries f until it succeeds or timeout passes, returning f's last error.
func waitFor(ctx context.Context, timeout time.Duration, f func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		err := f()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		if err := sleepCtx(ctx, 250*time.Millisecond); err != nil {
			return err
		}
	}
}

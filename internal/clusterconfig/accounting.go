package clusterconfig

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Accounting is the cluster's Slurm accounting: slurmdbd on the controller, storing into MariaDB
// on the controller (Database.Host empty) or into an external MySQL/MariaDB endpoint. It holds no
// password: the controller's agent generates the one of its own database inside the cluster, and
// an external database's password is read on the controller from the secret Database names.
type Accounting struct {
	Enabled   bool               `json:"enabled"`
	Database  AccountingDatabase `json:"database,omitzero"`
	Retention Retention          `json:"retention,omitzero"`
	// QOS are the quality-of-service names created in slurmdbd (besides Slurm's own "normal")
	// and granted to the root account, so every user may ask for them.
	QOS []string `json:"qos,omitempty"`
	// FairShare switches scheduling to priority/multifactor with a fair-share weight.
	FairShare bool `json:"fair_share,omitempty"`
}

// AccountingDatabase is where slurmdbd stores its records.
type AccountingDatabase struct {
	// Host empty: MariaDB inside the controller VM, its datadir on the controller's boot disk.
	Host string `json:"host,omitempty"`
	// Port 0 means 3306.
	Port int `json:"port,omitempty"`
	// User empty means "slurm".
	User string `json:"user,omitempty"`
	// PasswordFile is, for an external database, a root-only file on the controller that holds
	// the password (put there by the image or the site's secret tooling); never its content.
	PasswordFile string `json:"password_file,omitempty"`
}

// Local reports whether the database runs inside the controller VM.
func (d AccountingDatabase) Local() bool { return d.Host == "" }

// Retention is how long slurmdbd keeps records, in days; 0 keeps them forever.
type Retention struct {
	JobDays   int `json:"job_days,omitempty"`
	StepDays  int `json:"step_days,omitempty"`
	EventDays int `json:"event_days,omitempty"`
}

// Accounting defaults and fixed names.
const (
	DefaultSlurmdbdPort     = 6819
	DefaultDatabasePort     = 3306
	DefaultDatabaseUser     = "slurm"
	AccountingDatabaseName  = "slurm_acct_db"
	SlurmdbdConfFile        = "slurmdbd.conf"
	SlurmdbdLogFile         = "/var/log/slurm/slurmdbd.log"
	SlurmdbdPidFile         = "/run/slurm/slurmdbd.pid"
	MaxRetentionDays        = 36500
	MaxQOS                  = 32
	fairShareWeight         = 10000
	ageWeight               = 1000
	fairShareDecayHalfLife  = "7-0"
	jobAcctGatherFrequency  = 30
	jobAcctGatherTypeLinux  = "jobacct_gather/linux"
	accountingStorageDBD    = "accounting_storage/slurmdbd"
	priorityTypeMultifactor = "priority/multifactor"
)

// AccountingOn reports whether the cluster keeps accounting records.
func (c Cluster) AccountingOn() bool { return c.Accounting != nil && c.Accounting.Enabled }

// qosNameRE: sacctmgr stores QoS names lower-case; a comma or "=" would split sacctmgr's lists.
var qosNameRE = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,63}$`)

// ValidateQOSName checks one QoS name as sacctmgr takes it.
func ValidateQOSName(q string) error {
	if !qosNameRE.MatchString(q) {
		return fmt.Errorf("QoS name %q is not valid: use 1 to 64 lower-case letters, digits, '-' or '_', starting with a letter", q)
	}
	return nil
}

// accountingKeys are slurm.conf keys the accounting block writes, so slurm.extra may not.
var accountingKeys = []string{"AccountingStorageType", "AccountingStorageHost", "AccountingStoragePort", "JobAcctGatherType"}

// fairShareKeys are written when fair share is on.
var fairShareKeys = []string{"PriorityType", "PriorityWeightFairshare", "PriorityWeightAge", "PriorityDecayHalfLife"}

// ValidateAccounting checks the accounting block and its clashes with the cluster's own settings.
func ValidateAccounting(c Cluster) error {
	a := c.Accounting
	if a == nil || !a.Enabled {
		return nil
	}
	d := a.Database
	if d.Port < 0 || d.Port > 65535 {
		return fmt.Errorf("accounting database port %d is out of range; use 1 to 65535", d.Port)
	}
	if d.Local() && (d.Port != 0 || d.User != "" || d.PasswordFile != "") {
		return fmt.Errorf("accounting database port, user and password file are for an external database; set its host too")
	}
	if !d.Local() && d.PasswordFile == "" {
		return fmt.Errorf("accounting database %s needs a password file on the controller", d.Host)
	}
	for name, days := range map[string]int{"job": a.Retention.JobDays, "step": a.Retention.StepDays, "event": a.Retention.EventDays} {
		if days < 0 || days > MaxRetentionDays {
			return fmt.Errorf("accounting %s retention %d days is out of range; use 0 (keep forever) to %d", name, days, MaxRetentionDays)
		}
	}
	if len(a.QOS) > MaxQOS {
		return fmt.Errorf("accounting names %d QoS; at most %d", len(a.QOS), MaxQOS)
	}
	seen := map[string]bool{}
	for _, q := range a.QOS {
		if err := ValidateQOSName(q); err != nil {
			return err
		}
		if seen[q] {
			return fmt.Errorf("QoS %q is listed twice", q)
		}
		seen[q] = true
	}
	owned := accountingKeys
	if a.FairShare {
		owned = append(append([]string{}, owned...), fairShareKeys...)
	}
	for k := range c.Slurm.Extra {
		for _, o := range owned {
			if strings.EqualFold(k, o) {
				return fmt.Errorf("slurm.conf setting %s is set by the accounting block; remove it from the extra settings", o)
			}
		}
	}
	return nil
}

// accountingStorageHost is where slurmctld and the client commands reach slurmdbd.
func accountingStorageHost(c Cluster) string {
	if c.Controller.Address != "" {
		return c.Controller.Address
	}
	return c.Controller.Hostname
}

// writeAccounting adds the accounting lines to slurm.conf (nothing when accounting is off).
func writeAccounting(w *confWriter, c Cluster) {
	if !c.AccountingOn() {
		return
	}
	w.blank()
	w.comment("Accounting: slurmdbd on the controller")
	w.kv("AccountingStorageType", accountingStorageDBD)
	w.kv("AccountingStorageHost", accountingStorageHost(c))
	w.kv("AccountingStoragePort", DefaultSlurmdbdPort)
	w.kv("JobAcctGatherType", jobAcctGatherTypeLinux)
	if _, set := c.Slurm.Extra["JobAcctGatherFrequency"]; !set {
		w.kv("JobAcctGatherFrequency", jobAcctGatherFrequency)
	}
	if c.Accounting.FairShare {
		w.kv("PriorityType", priorityTypeMultifactor)
		w.kv("PriorityWeightFairshare", fairShareWeight)
		w.kv("PriorityWeightAge", ageWeight)
		w.kv("PriorityDecayHalfLife", fairShareDecayHalfLife)
	}
}

// RenderSlurmdbdConf renders slurmdbd.conf with the database password, which only the
// controller's agent knows: the file is written there mode 0600 for SlurmUser (slurmdbd refuses
// any other) and never published to other VMs.
func RenderSlurmdbdConf(c Cluster, password string) ([]byte, error) {
	if !c.AccountingOn() {
		return nil, fmt.Errorf("accounting is not enabled")
	}
	if err := ValidateAccounting(c); err != nil {
		return nil, err
	}
	if strings.ContainsAny(password, "\n\r#") || password == "" {
		return nil, fmt.Errorf("the accounting database password must be one line without '#'")
	}
	c = c.withDefaults()
	a, l := c.Accounting, c.Layout
	var w confWriter
	w.comment("slurmdbd.conf of cluster %q - generated by hypercompute-agent; do not edit.", c.Name)
	w.kv("DbdHost", c.Controller.Hostname)
	if c.Controller.Address != "" {
		w.kv("DbdAddr", c.Controller.Address)
	}
	w.kv("DbdPort", DefaultSlurmdbdPort)
	w.kv("SlurmUser", l.SlurmUser)
	w.kv("AuthType", "auth/munge")
	if l.MungeSocket != "" {
		w.kv("AuthInfo", "socket="+l.MungeSocket)
	}
	w.kv("LogFile", SlurmdbdLogFile)
	w.kv("PidFile", SlurmdbdPidFile)
	w.kv("StorageType", "accounting_storage/mysql")
	host, port, user := "127.0.0.1", DefaultDatabasePort, DefaultDatabaseUser
	if d := a.Database; !d.Local() {
		host = d.Host
		if d.Port != 0 {
			port = d.Port
		}
		if d.User != "" {
			user = d.User
		}
	}
	w.kv("StorageHost", host)
	w.kv("StoragePort", port)
	w.kv("StorageUser", user)
	w.kv("StoragePass", password)
	w.kv("StorageLoc", AccountingDatabaseName)
	// Fixed order, so the file's hash only changes with its content.
	for _, p := range []struct {
		key  string
		days int
	}{{"PurgeEventAfter", a.Retention.EventDays}, {"PurgeJobAfter", a.Retention.JobDays}, {"PurgeStepAfter", a.Retention.StepDays}} {
		if p.days > 0 {
			w.kv(p.key, strconv.Itoa(p.days)+"days")
		}
	}
	return w.b.Bytes(), nil
}

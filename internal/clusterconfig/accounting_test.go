package clusterconfig_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

func accountingCluster(a *cc.Accounting) cc.Cluster {
	c := baseCluster("acct")
	c.Controller.Address = "10.0.0.5"
	c.Accounting = a
	return c
}

func TestAccountingInSlurmConf(t *testing.T) {
	off, err := cc.RenderSlurmConf(accountingCluster(nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(off), "Accounting") || strings.Contains(string(off), "PriorityType") {
		t.Errorf("a cluster without accounting names it:\n%s", off)
	}
	on, err := cc.RenderSlurmConf(accountingCluster(&cc.Accounting{Enabled: true, FairShare: true}), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"AccountingStorageType=accounting_storage/slurmdbd", "AccountingStorageHost=10.0.0.5", "AccountingStoragePort=6819",
		"JobAcctGatherType=jobacct_gather/linux", "PriorityType=priority/multifactor", "PriorityWeightFairshare=10000"} {
		if !strings.Contains(string(on), "\n"+line+"\n") {
			t.Errorf("slurm.conf lacks %s", line)
		}
	}
	noFS, _ := cc.RenderSlurmConf(accountingCluster(&cc.Accounting{Enabled: true}), nil)
	if strings.Contains(string(noFS), "PriorityType") {
		t.Error("PriorityType without fair share")
	}
}

func TestSlurmdbdConf(t *testing.T) {
	local := accountingCluster(&cc.Accounting{Enabled: true, Retention: cc.Retention{JobDays: 365, EventDays: 30}})
	conf, err := cc.RenderSlurmdbdConf(local, "s3cret-pw")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"DbdHost=acct-controller", "DbdAddr=10.0.0.5", "StorageType=accounting_storage/mysql", "StorageHost=127.0.0.1",
		"StoragePort=3306", "StorageUser=slurm", "StoragePass=s3cret-pw", "StorageLoc=slurm_acct_db", "PurgeJobAfter=365days", "PurgeEventAfter=30days"} {
		if !strings.Contains(string(conf), "\n"+line+"\n") {
			t.Errorf("slurmdbd.conf lacks %s:\n%s", line, conf)
		}
	}
	if strings.Contains(string(conf), "PurgeStepAfter") {
		t.Error("a retention left at 0 purges steps")
	}
	ext := accountingCluster(&cc.Accounting{Enabled: true, Database: cc.AccountingDatabase{Host: "db.internal", Port: 3307, User: "acct", PasswordFile: "/etc/db"}})
	conf, err = cc.RenderSlurmdbdConf(ext, "pw")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"StorageHost=db.internal", "StoragePort=3307", "StorageUser=acct"} {
		if !strings.Contains(string(conf), "\n"+line+"\n") {
			t.Errorf("slurmdbd.conf for an external database lacks %s", line)
		}
	}
	for _, pw := range []string{"", "a#b", "two\nlines"} {
		if _, err := cc.RenderSlurmdbdConf(local, pw); err == nil {
			t.Errorf("password %q accepted", pw)
		}
	}
	// The cluster's config, which travels through metadata, holds no password.
	b, _ := cc.EncodeCluster(local)
	if strings.Contains(string(b), "s3cret") || strings.Contains(strings.ToLower(string(b)), "pass\"") {
		t.Errorf("the cluster config carries a password: %s", b)
	}
}

func TestValidateAccounting(t *testing.T) {
	bad := map[string]cc.Accounting{
		"accounting job retention -1 days": {Enabled: true, Retention: cc.Retention{JobDays: -1}},
		"QoS name \"a,b\" is not valid":    {Enabled: true, QOS: []string{"a,b"}},
		"QoS \"x\" is listed twice":        {Enabled: true, QOS: []string{"x", "x"}},
		"needs a password file":            {Enabled: true, Database: cc.AccountingDatabase{Host: "db"}},
		"are for an external database":     {Enabled: true, Database: cc.AccountingDatabase{Port: 3306}},
		"port 70000 is out of range":       {Enabled: true, Database: cc.AccountingDatabase{Host: "db", Port: 70000, PasswordFile: "/x"}},
	}
	for want, a := range bad {
		err := cc.ValidateAccounting(accountingCluster(&a))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: %v, want %q", a, err, want)
		}
	}
	c := accountingCluster(&cc.Accounting{Enabled: true, FairShare: true})
	c.Slurm.Extra = map[string]string{"PriorityType": "priority/basic"}
	if err := cc.ValidateCluster(c); err == nil || !strings.Contains(err.Error(), "PriorityType is set by the accounting block") {
		t.Errorf("fair share with PriorityType in extra: %v", err)
	}
	c.Accounting.FairShare = false
	if err := cc.ValidateCluster(c); err != nil {
		t.Errorf("PriorityType in extra without fair share: %v", err)
	}
}

func TestGoodputReportFitsAGuestAttribute(t *testing.T) {
	r := cc.GoodputReport{Window: "7d"}
	for i := range 300 {
		r.Jobs = append(r.Jobs, cc.JobGoodput{JobID: strconv.Itoa(1000 + i), Name: "a-training-run-name", Partition: "a3", State: "COMPLETED"})
	}
	v, err := cc.EncodeGoodputReport(r)
	if err != nil || len(v) > cc.MaxGuestAttributeValue {
		t.Fatalf("%d bytes, %v", len(v), err)
	}
	var back cc.GoodputReport
	if err := json.Unmarshal([]byte(v), &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Jobs) == 0 || back.JobsOmitted+len(back.Jobs) != 300 || back.Jobs[len(back.Jobs)-1].JobID != "1299" {
		t.Errorf("kept %d jobs (last %s), omitted %d", len(back.Jobs), back.Jobs[len(back.Jobs)-1].JobID, back.JobsOmitted)
	}
}

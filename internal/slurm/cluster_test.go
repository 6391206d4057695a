package slurm

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/slurm/slurmtest"
)

// The integration tests' Slurm (slurmtest): one node with two CPUs in one partition, and both
// slurmrestd (JWT over TCP, rest_auth/local over a unix socket). Started on first use, stopped
// by TestMain.

const (
	testNode      = "rest1"
	testPartition = "resttest"
)

type testCluster = slurmtest.Cluster

var testSlurm = &slurmtest.Shared{Options: func() slurmtest.Options {
	return slurmtest.Options{
		Name: "resttest", Partition: testPartition, Nodes: []slurmtest.Node{{Name: testNode, CPUs: 2}}, REST: true,
	}
}}

func TestMain(m *testing.M) { os.Exit(testSlurm.Main(m)) }

// needCluster returns the running test cluster, starting it on first use, or skips the test with
// the reason the cluster cannot run here.
func needCluster(t *testing.T) *testCluster {
	t.Helper()
	return testSlurm.Get(t)
}

var waitFor = slurmtest.WaitFor

// testContext bounds one integration test's calls.
func testContext(t *testing.T) context.Context {
	// Generous: with local-runtime clusters training beside it on 2 cores, a cancelled job was
	// seen COMPLETING for over 30 s (slurmstepd reaping under load), which is no failure of this API.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

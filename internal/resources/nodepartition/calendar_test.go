package nodepartition_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
)

// insertCalendarRequest submits a calendar-mode future reservation through the API, as a team buying capacity does.
func insertCalendarRequest(t *testing.T, env *acctest.Env, name, machine string, count int64, start time.Time, days int) {
	t.Helper()
	ctx := context.Background()
	cl, err := gcp.NewClients(ctx, gcp.Config{Project: acctest.Project, Region: acctest.Region, Zone: acctest.Zone, EmulatorHost: env.Host, UserAgent: "calendar-test"})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	mustOp(t, cl, func() (op, error) {
		return cl.FutureReservations.Insert(ctx, &computepb.InsertFutureReservationRequest{Project: acctest.Project, Zone: acctest.Zone,
			FutureReservationResource: &computepb.FutureReservation{
				Name: proto.String(name), ReservationMode: proto.String("CALENDAR"), PlanningStatus: proto.String("SUBMITTED"),
				AutoDeleteAutoCreatedReservations: proto.Bool(true),
				SpecificSkuProperties: &computepb.FutureReservationSpecificSKUProperties{TotalCount: proto.Int64(count),
					InstanceProperties: &computepb.AllocationSpecificSKUAllocationReservedInstanceProperties{MachineType: proto.String(machine)}},
				TimeWindow: &computepb.FutureReservationTimeWindow{StartTime: proto.String(start.UTC().Format(time.RFC3339)),
					EndTime: proto.String(start.Add(time.Duration(days) * 24 * time.Hour).UTC().Format(time.RFC3339))},
			}})
	})
}

// A calendar partition is checked against its future reservation at plan (missing, another machine type, too
// small: refused naming provisioning.future_reservation with no mutating call); a good one creates its template
// and key but no VM, hands the controller the window, plans empty afterwards although no node exists, and imports.
func TestAccNodePartition_calendar(t *testing.T) {
	env := acctest.New(t)
	tc := newCluster(t, env.Env, "hcc", clusterOpts{})
	start := time.Now().Add(50 * time.Hour).Truncate(time.Second)
	insertCalendarRequest(t, env, "train-week", "n2-standard-4", 4, start, 7)
	cfg := func(fr string, static, dynamic int) string {
		return env.Config(partitionConfig(tc.id, "cal", "n2-standard-4", static, dynamic, fmt.Sprintf(`  provisioning = {
    model              = "calendar"
    future_reservation = %q
  }`, fr)))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkNoPartitionLeft(env, tc, "cal", "hcc-cal"),
		Steps: []resource.TestStep{
			{
				PreConfig:   env.ResetCalls,
				Config:      cfg("nope", 2, 0),
				ExpectError: acctest.ErrorMatching(`provisioning\.future_reservation: future reservation nope does not exist in project hc-acc-test, zone us-central1-a`),
			},
			{
				Config:      cfg("train-week", 3, 2),
				ExpectError: acctest.ErrorMatching(`future reservation train-week holds 4 VMs, but the partition has 5 nodes`),
			},
			{
				Config:      env.Config(partitionConfig(tc.id, "cal", "n2-standard-4", 2, 0, `  provisioning = { model = "calendar" }`)),
				ExpectError: acctest.ErrorMatching(`provisioning\.future_reservation.*model = "calendar" needs the future reservation`),
			},
			{
				PreConfig: func() { checkNoMutations(t, env) },
				Config:    cfg("train-week", 2, 1),
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "provisioning.model", "calendar"),
					resource.TestCheckResourceAttr(addr, "provisioning.future_reservation", "train-week"),
					resource.TestCheckResourceAttr(addr, "static_node_count", "2"),
					func(*terraform.State) error {
						if vms := vmNames(env.Env, "hcc-cal"); len(vms) != 0 {
							return fmt.Errorf("the provider created VMs %v for a calendar partition before its capacity arrived", vms)
						}
						p, ok := tc.partition(env.Env, "cal")
						if !ok || p.Calendar == nil {
							return fmt.Errorf("the controller's key for the partition has no calendar: %+v", p)
						}
						want := fmt.Sprintf("projects/%s/zones/%s/futureReservations/train-week", acctest.Project, acctest.Zone)
						if p.Calendar.FutureReservation != want || p.Calendar.Start != start.UTC().Format(time.RFC3339) {
							return fmt.Errorf("calendar = %+v, want %s from %s", *p.Calendar, want, start.UTC().Format(time.RFC3339))
						}
						return nil
					},
				),
			},
			{
				// No node exists yet, and none is missing: the plan is empty.
				Config:   cfg("train-week", 2, 1),
				PlanOnly: true,
			},
			{
				ResourceName: addr, ImportState: true, ImportStateVerify: true,
				ImportStateId:           tc.id + "/partitions/cal",
				ImportStateVerifyIgnore: []string{"timeouts", "force_scale_down", "wait_for_nodes", "allow_partial", "drain_timeout", "drain_timeout_action", "rolling_update"},
			},
		},
	})
}

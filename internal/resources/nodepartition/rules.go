package nodepartition

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// Provisioning models users write, and what Compute calls them.
const (
	modelStandard    = "standard"
	modelSpot        = "spot"
	modelFlexStart   = "flex_start"
	modelReservation = "reservation"
	// modelCalendar: capacity of a calendar-mode future reservation (calendar.go).
	modelCalendar = "calendar"
)

var provisioningModels = []string{modelStandard, modelSpot, modelFlexStart, modelReservation, modelCalendar}

// Flex-start run bounds (gcp-apis.md, Scheduling).
const (
	minRunDuration = 30 * time.Second
	maxRunDuration = 7 * 24 * time.Hour
)

// Boot disk types a partition may use.
var bootDiskTypes = []string{"pd-standard", "pd-balanced", "pd-ssd", "hyperdisk-balanced"}

// Compute allows at most 24 local SSDs on the machine types that take them as an option.
const maxLocalSSDs = 24

// localSSDGB is the size of one local SSD.
const localSSDGB = 375

// values are the attributes the plan-time rules look at; nil means unknown at plan time (a
// reference to another resource's output), and the rule that needs it waits for apply, where
// every value is known and the same rules run again before any API call.
type values struct {
	clusterName *string
	clusterZone *string
	name        *string
	machineType *string
	zone        *string
	static      *int64
	dynamic     *int64
	model       *string
	reservation *string // nil: unknown; "" unset
	futureRes   *string // nil: unknown; "" unset
	maxRun      *string
	termination *string
	compact     *bool
	image       *string
	localSSDs   *int64
	labels      map[string]string // nil when unknown
}

// problem is one broken rule: the attribute it is reported against and the message, which
// starts with that attribute's path because Terraform does not print nested paths.
type problem struct {
	attr string
	msg  string
}

func (p problem) Error() string { return p.msg }

func newProblem(attr, format string, args ...any) problem {
	msg := fmt.Sprintf(format, args...)
	if !strings.HasPrefix(msg, attr+":") && !strings.HasPrefix(msg, attr+" ") {
		msg = attr + ": " + msg
	}
	return problem{attr: attr, msg: msg}
}

// check runs every rule that spans attributes or needs the catalog. It makes no API call.
func check(v values) []problem {
	var out []problem
	add := func(p *problem) {
		if p != nil {
			out = append(out, *p)
		}
	}
	m, machineOK := catalog.Machine(deref(v.machineType))
	machineOK = machineOK && v.machineType != nil
	if v.machineType != nil && v.zone != nil && machineOK {
		if err := catalog.ValidateMachineInZone(*v.machineType, *v.zone); err != nil {
			attr := "machine_type"
			if _, zoneOK := catalog.Zone(*v.zone); !zoneOK {
				attr = "zone"
			}
			out = append(out, newProblem(attr, "%s", err.Error()))
		}
	}
	add(checkRegion(v))
	add(checkCounts(v))
	add(checkNames(v))
	out = append(out, checkProvisioning(v, m, machineOK)...)
	add(checkPlacement(v, m, machineOK))
	add(checkImage(v, m, machineOK))
	add(checkLocalSSDs(v, m, machineOK))
	add(checkLabels(v))
	return out
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func checkCounts(v values) *problem {
	if v.static == nil || v.dynamic == nil {
		return nil
	}
	total := *v.static + *v.dynamic
	switch {
	case total == 0:
		p := newProblem("static_node_count", "the partition has no nodes: set static_node_count (VMs that always run) or max_dynamic_node_count (VMs Slurm creates on demand) above 0")
		return &p
	case total > cc.MaxPartitionNodes:
		p := newProblem("max_dynamic_node_count", "static_node_count + max_dynamic_node_count is %d; a partition holds at most %d nodes", total, cc.MaxPartitionNodes)
		return &p
	}
	return nil
}

// checkNames checks that every node name the partition derives is a valid VM and host name.
func checkNames(v values) *problem {
	if v.clusterName == nil || v.name == nil || v.static == nil || v.dynamic == nil {
		return nil
	}
	prefix := cc.NodeNamePrefix(*v.clusterName, *v.name)
	// The longest name: the last static node's, or the last dynamic node's (<prefix>-d<index>).
	last := cc.NodeName(prefix, max(int(*v.static)-1, 0))
	if dyn := cc.DynamicNodeName(prefix, int(*v.dynamic)-1); *v.dynamic > 0 && len(dyn) > len(last) {
		last = dyn
	}
	if len(last) > 63 {
		p := newProblem("name", "node name %q would be %d characters long; VM and host names allow at most 63, so shorten the partition name (or the cluster's)", last, len(last))
		return &p
	}
	return nil
}

func checkProvisioning(v values, m catalog.MachineType, machineOK bool) []problem {
	var out []problem
	if v.model == nil {
		return nil
	}
	model := *v.model
	if v.reservation != nil {
		res := *v.reservation
		switch {
		case res != "" && model == modelFlexStart:
			out = append(out, newProblem("provisioning.reservation", "flex-start VMs cannot consume a reservation (Compute sends them with NO_RESERVATION); remove provisioning.reservation or use model = \"reservation\""))
		case res != "" && model == modelSpot:
			out = append(out, newProblem("provisioning.reservation", "Spot VMs cannot consume a reservation; remove provisioning.reservation or use model = \"reservation\""))
		case res != "" && model == modelStandard:
			out = append(out, newProblem("provisioning.reservation", "a reservation is consumed with model = \"reservation\"; set provisioning.model = \"reservation\" or remove provisioning.reservation"))
		case res != "" && model == modelCalendar:
			out = append(out, newProblem("provisioning.reservation", "a calendar partition consumes the reservation its future reservation delivers; remove provisioning.reservation and name provisioning.future_reservation"))
		case res == "" && model == modelReservation:
			out = append(out, newProblem("provisioning.reservation", "model = \"reservation\" needs the reservation to consume: its name, projects/{project}/reservations/{name} for a shared one, optionally followed by /reservationBlocks/{block}"))
		}
	}
	if v.futureRes != nil {
		switch fr := *v.futureRes; {
		case fr != "" && model != modelCalendar:
			out = append(out, newProblem("provisioning.future_reservation", "a future reservation's capacity is used with model = \"calendar\"; set provisioning.model = \"calendar\" or remove provisioning.future_reservation"))
		case fr == "" && model == modelCalendar:
			out = append(out, newProblem("provisioning.future_reservation", "model = \"calendar\" needs the future reservation (calendar mode) whose capacity the partition runs on: its name, in the partition's project and zone"))
		}
	}
	if v.maxRun != nil && *v.maxRun != "" {
		if model != modelFlexStart {
			out = append(out, newProblem("provisioning.max_run_duration", "max_run_duration applies to flex-start VMs only (model = \"flex_start\"); remove it"))
		} else if _, err := parseRunDuration(*v.maxRun); err != nil {
			out = append(out, newProblem("provisioning.max_run_duration", "%s", err.Error()))
		}
	}
	// Flex-start (DWS) capacity is granted per request and Compute deletes the VM at its
	// max_run_duration (7 days at most): a "static" node would vanish and be recreated by the next
	// apply at least weekly, with whatever job ran on it. Such nodes are what dynamic nodes are for.
	if model == modelFlexStart && v.static != nil && *v.static > 0 {
		out = append(out, newProblem("static_node_count", "flex-start (Dynamic Workload Scheduler) capacity is obtained per job, and Compute deletes a flex-start VM once it has run max_run_duration (7 days at most), so static nodes would be deleted and recreated at least weekly; set static_node_count = 0 and max_dynamic_node_count to the most nodes Slurm may obtain for jobs, or use model = \"standard\" or \"reservation\" for nodes that always run"))
	}
	if v.termination != nil && *v.termination != "" && model != modelSpot {
		out = append(out, newProblem("provisioning.termination_action", "termination_action applies to Spot VMs only (model = \"spot\"); remove it"))
	}
	if !machineOK {
		return out
	}
	switch {
	case m.Placement.ReservationBound && model != modelReservation && model != modelCalendar:
		out = append(out, newProblem("provisioning.model", "%s VMs can only be created from a reservation (reservation-bound capacity); set model = \"reservation\" and name the reservation", m.Name))
	case model == modelSpot && !m.SpotCapable:
		out = append(out, newProblem("provisioning.model", "%s cannot run as Spot VMs", m.Name))
	case model == modelFlexStart && !m.FlexStartCapable:
		out = append(out, newProblem("provisioning.model", "%s cannot be obtained with flex-start", m.Name))
	}
	return out
}

func checkPlacement(v values, m catalog.MachineType, machineOK bool) *problem {
	if v.compact == nil || !*v.compact || !machineOK {
		return nil
	}
	switch m.Placement.Mode {
	case catalog.PlacementNone:
		p := newProblem("placement.compact", "%s does not support compact placement policies; remove placement.compact", m.Name)
		return &p
	case catalog.PlacementFromReservation:
		p := newProblem("placement.compact", "%s VMs get their placement from the reservation's dense blocks, not from a placement policy; remove placement.compact and use provisioning.model = \"reservation\" (optionally naming a reservation block)", m.Name)
		return &p
	}
	if v.static == nil || v.dynamic == nil {
		return nil
	}
	if total := *v.static + *v.dynamic; total > int64(m.Placement.MaxVMs) {
		p := newProblem("placement.compact", "a compact placement policy holds at most %d VMs, and this partition may have %d (static_node_count + max_dynamic_node_count); split it into partitions of at most %d nodes or remove placement.compact", m.Placement.MaxVMs, total, m.Placement.MaxVMs)
		return &p
	}
	return nil
}

// imageArch tells an image's CPU architecture from its name, as Google's image families spell it
// ("...-arm64-...", "...-amd64-..."); "" when the name does not say.
func imageArch(image string) string {
	s := strings.ToLower(image)
	switch {
	case strings.Contains(s, "arm64") || strings.Contains(s, "aarch64"):
		return catalog.ArchARM
	case strings.Contains(s, "amd64") || strings.Contains(s, "x86_64") || strings.Contains(s, "x86-64"):
		return catalog.ArchX86
	}
	return ""
}

func checkImage(v values, m catalog.MachineType, machineOK bool) *problem {
	if v.image == nil || *v.image == "" || !machineOK {
		return nil
	}
	if a := imageArch(*v.image); a != "" && a != m.Arch {
		p := newProblem("image", "%q is an %s image, but %s VMs are %s; use an %s image such as %s", *v.image, a, m.Name, m.Arch, m.Arch, defaultImage(m))
		return &p
	}
	return nil
}

// bundledLocalSSDs is the number of local SSDs a machine type comes with (A3, A4: fixed).
func bundledLocalSSDs(m catalog.MachineType) int { return m.LocalSSDGB / localSSDGB }

func checkLocalSSDs(v values, m catalog.MachineType, machineOK bool) *problem {
	if v.localSSDs == nil || !machineOK {
		return nil
	}
	n := int(*v.localSSDs)
	switch b := bundledLocalSSDs(m); {
	case b > 0 && n != b:
		p := newProblem("local_ssd_count", "%s comes with %d local SSDs (%d GB) attached; remove local_ssd_count or set it to %d", m.Name, b, m.LocalSSDGB, b)
		return &p
	case b == 0 && n > 0 && (m.Family == "e2" || m.Family == "g2"):
		p := newProblem("local_ssd_count", "%s VMs cannot attach local SSDs; remove local_ssd_count", m.Name)
		return &p
	}
	return nil
}

func checkLabels(v values) *problem {
	for _, k := range []string{labelCluster, labelPartition} {
		if _, ok := v.labels[k]; ok {
			p := newProblem("labels", "the label %q is set by the provider on every VM of the partition (refresh finds the VMs by it); use another key", k)
			return &p
		}
	}
	return nil
}

var runDurationRE = regexp.MustCompile(`^(?:(\d+)d)?(.*)$`)

// parseRunDuration reads a flex-start run limit: Go durations ("90m", "24h", "1h30m") plus whole
// days ("7d", "1d12h").
func parseRunDuration(s string) (time.Duration, error) {
	bad := fmt.Errorf("%q is not a duration; write it like \"30s\", \"90m\", \"24h\" or \"7d\" (between 30 seconds and 7 days)", s)
	m := runDurationRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil || (m[1] == "" && m[2] == "") {
		return 0, bad
	}
	var d time.Duration
	if m[1] != "" {
		days, err := strconv.Atoi(m[1])
		if err != nil || days > 1000 {
			return 0, bad
		}
		d = time.Duration(days) * 24 * time.Hour
	}
	if m[2] != "" {
		rest, err := time.ParseDuration(m[2])
		if err != nil {
			return 0, bad
		}
		d += rest
	}
	if d < minRunDuration || d > maxRunDuration {
		return 0, fmt.Errorf("%q is out of range: flex-start VMs run between 30 seconds and 7 days", s)
	}
	return d, nil
}

// reservationRef is a parsed provisioning.reservation: NAME or projects/P/reservations/NAME, either
// optionally followed by /reservationBlocks/B[/reservationSubBlocks/S].
type reservationRef struct {
	project, name, block, subBlock string
	shared                         bool
}

func parseReservation(s, defaultProject string) (reservationRef, error) {
	bad := fmt.Errorf("%q is not a reservation: use NAME or projects/{project}/reservations/NAME, optionally followed by /reservationBlocks/{block}[/reservationSubBlocks/{sub-block}]", s)
	ref := reservationRef{project: defaultProject}
	rest := s
	if i := strings.Index(rest, "/reservationBlocks/"); i >= 0 {
		tail := strings.Split(rest[i+len("/reservationBlocks/"):], "/")
		rest = rest[:i]
		switch {
		case len(tail) == 1:
			ref.block = tail[0]
		case len(tail) == 3 && tail[1] == "reservationSubBlocks":
			ref.block, ref.subBlock = tail[0], tail[2]
		default:
			return ref, bad
		}
		if !catalog.IsValidResourceName(ref.block) || (ref.subBlock != "" && !catalog.IsValidResourceName(ref.subBlock)) {
			return ref, bad
		}
	}
	parts := strings.Split(rest, "/")
	switch {
	case len(parts) == 1:
		ref.name = parts[0]
	case len(parts) == 4 && parts[0] == "projects" && parts[2] == "reservations" && parts[1] != "":
		ref.project, ref.name, ref.shared = parts[1], parts[3], true
	default:
		return ref, bad
	}
	if !catalog.IsValidResourceName(ref.name) {
		return ref, bad
	}
	return ref, nil
}

// defaultImage is the image family the catalog pins for a machine type.
func defaultImage(m catalog.MachineType) string {
	return fmt.Sprintf("projects/%s/global/images/family/%s", m.ImageProject, m.ImageFamily)
}

// defaultBootDiskType: the newest accelerator machines take Hyperdisk only.
func defaultBootDiskType(m catalog.MachineType) string {
	switch m.Profile {
	case "a3-ultra", "a4", "a4x":
		return "hyperdisk-balanced"
	}
	return "pd-balanced"
}

// defaultBootDiskGB leaves room for the accelerator images' drivers and containers.
func defaultBootDiskGB(m catalog.MachineType) int64 {
	if m.HasGPU() {
		return 200
	}
	return 50
}

// checkRegion: a partition's nodes may sit in another zone than the cluster (a machine type the
// cluster's zone does not offer), but not in another region, where /home, Lustre and the
// controller are out of reach or only across regions.
func checkRegion(v values) *problem {
	if v.zone == nil || v.clusterZone == nil || *v.zone == *v.clusterZone {
		return nil
	}
	pr, ok1 := catalog.RegionOf(*v.zone)
	cr, ok2 := catalog.RegionOf(*v.clusterZone)
	if !ok1 || !ok2 || pr == cr {
		return nil
	}
	p := newProblem("zone", "%s is in region %s, but the cluster runs in %s (region %s); nodes must reach the controller, /home and Lustre in the cluster's region: use a zone of %s", *v.zone, pr, *v.clusterZone, cr, cr)
	return &p
}

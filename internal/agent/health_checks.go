package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// healthFailure is a check that failed on this node, with the evidence the drain reason carries.
type healthFailure struct {
	Check    string
	Evidence string
}

// toolDirs are searched after PATH for the GPU tools: slurmd runs HealthCheckProgram with an empty
// environment, and GPU images put nvidia-smi and dcgmi in these places.
var toolDirs = []string{"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin",
	"/var/lib/nvidia/bin", "/usr/local/nvidia/bin", "/usr/local/nccl-tests/bin"}

func lookTool(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, d := range toolDirs {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s is not installed (looked in PATH and %s)", name, strings.Join(toolDirs, ", "))
}

// healthSkip is a check that had nothing to judge on this node (an NVLink check on a GPU without
// NVLink peers): neither a failure nor a pass, reported with why.
type healthSkip struct {
	Check string
	Why   string
}

// healthRunner runs checks on this node; its commands are replaceable in tests.
type healthRunner struct {
	gpus int
	// skipped collects the checks of the last run that did not apply; results every check's
	// outcome and duration, for the node's metrics.
	skipped []healthSkip
	results []checkRun
	// tool runs a GPU tool and returns its standard output.
	tool func(ctx context.Context, name string, args ...string) (string, error)
	// alive reports whether a daemon runs on this node.
	alive func(name string) bool
}

func newHealthRunner(gpus int) *healthRunner {
	return &healthRunner{gpus: gpus, tool: runTool, alive: processRunning}
}

func runTool(ctx context.Context, name string, args ...string) (string, error) {
	p, err := lookTool(name)
	if err != nil {
		return "", err
	}
	return runCommand(ctx, nil, p, args...)
}

// run runs the checks and returns those that failed.
func (r *healthRunner) run(ctx context.Context, checks []cc.HealthCheckSpec) []healthFailure {
	var out []healthFailure
	r.skipped, r.results = nil, nil
	for _, c := range checks {
		start := time.Now()
		ev := r.check(ctx, c)
		r.results = append(r.results, checkRun{Check: c.Name, Passed: ev == "", Seconds: time.Since(start).Seconds(), Time: start.UTC()})
		if ev != "" {
			out = append(out, healthFailure{Check: c.Name, Evidence: ev})
		}
	}
	return out
}

// check runs one check; the evidence of a failure, or "" when it passed.
func (r *healthRunner) check(ctx context.Context, c cc.HealthCheckSpec) string {
	switch c.Name {
	case cc.CheckGPU, cc.CheckECC:
		if r.gpus == 0 {
			return ""
		}
		out, err := r.tool(ctx, "nvidia-smi", "--query-gpu="+strings.Join(gpuQueryFields, ","), "--format=csv,noheader,nounits")
		if err != nil {
			return err.Error()
		}
		rows, err := parseGPUQuery(out)
		if err != nil {
			return err.Error()
		}
		if c.Name == cc.CheckGPU {
			if want := c.ExpectedGPUs; want > 0 && len(rows) < want {
				return fmt.Sprintf("%d of %d GPUs visible to nvidia-smi", len(rows), want)
			}
			if len(c.XIDs) > 0 {
				if log, err := r.tool(ctx, "dmesg"); err == nil {
					for _, x := range parseXIDs(log) {
						for _, bad := range c.XIDs {
							if x.XID == bad {
								return fmt.Sprintf("XID %d on %s", x.XID, x.Device)
							}
						}
					}
				}
			}
			return ""
		}
		for _, g := range rows {
			if g.UncorrectedECC > c.MaxUncorrectedECC {
				return fmt.Sprintf("GPU %d has %d uncorrected volatile ECC errors (limit %d)", g.Index, g.UncorrectedECC, c.MaxUncorrectedECC)
			}
		}
		return ""
	case cc.CheckDCGM:
		if r.gpus == 0 {
			return ""
		}
		out, err := r.tool(ctx, "dcgmi", "diag", "-r", strconv.Itoa(c.DCGMLevel), "-j")
		// dcgmi exits non-zero when a test fails; its JSON still says which.
		bad, perr := parseDCGMDiag(out)
		if perr != nil {
			if err != nil {
				return err.Error()
			}
			return perr.Error()
		}
		if len(bad) > 0 {
			b := bad[0]
			return strings.TrimSpace(fmt.Sprintf("level %d %s/%s %s on GPU %s %s", c.DCGMLevel, b.Category, b.Test, b.Status, b.GPUs, b.Warning))
		}
		return ""
	case cc.CheckNCCL:
		if r.gpus == 0 {
			return ""
		}
		out, err := r.tool(ctx, "all_reduce_perf", "-b", "8M", "-e", "1G", "-f", "2", "-g", strconv.Itoa(r.gpus))
		res, perr := parseAllReducePerf(out)
		if perr != nil {
			if err != nil {
				return err.Error()
			}
			return perr.Error()
		}
		if res.WrongResults > 0 {
			return fmt.Sprintf("all_reduce_perf: %d wrong results", res.WrongResults)
		}
		if c.MinBusBandwidthGBps > 0 && res.MaxBusBW < c.MinBusBandwidthGBps {
			return fmt.Sprintf("all_reduce bus bandwidth %.1f GB/s below %.0f GB/s", res.MaxBusBW, c.MinBusBandwidthGBps)
		}
		return ""
	case cc.CheckNVLink:
		if r.gpus == 0 {
			return ""
		}
		out, err := r.tool(ctx, "nvidia-smi", "nvlink", "-e")
		if err != nil {
			return err.Error()
		}
		w, ok := parseNVLinkErrors(out)
		if !ok {
			// A GPU without NVLink peers (a single-GPU VM, an L4) makes nvidia-smi print nothing
			// and exit 0: no links to judge. Text that is neither that nor counters is a format
			// the check cannot read, and failing says so instead of passing unseen.
			if nvlinkNoLinks(out) {
				r.skipped = append(r.skipped, healthSkip{Check: c.Name, Why: "not applicable: nvidia-smi nvlink -e lists no NVLink links on this node"})
				return ""
			}
			return fmt.Sprintf("nvidia-smi nvlink -e printed no link error counters: %q", firstLine(out))
		}
		if w.Count > c.MaxNVLinkErrors {
			return fmt.Sprintf("GPU %d NVLink %d has %d %s (limit %d)", w.GPU, w.Link, w.Count, w.Kind, c.MaxNVLinkErrors)
		}
		return ""
	case cc.CheckRemappedRows, cc.CheckUnrepairableMemory:
		if r.gpus == 0 {
			return ""
		}
		gpus, err := r.memoryRepair(ctx)
		if err != nil {
			return err.Error()
		}
		for _, g := range gpus {
			if c.Name == cc.CheckRemappedRows {
				if p := g.pendingRepair(); p != "" {
					return fmt.Sprintf("GPU %s: %s (a GPU reset applies it)", g.BusID, p)
				}
			} else if u := g.unrepairable(); u != "" {
				return fmt.Sprintf("GPU %s: %s (the host's GPU memory cannot be repaired)", g.BusID, u)
			}
		}
		return ""
	case cc.CheckDisk:
		for _, p := range c.Paths {
			var st unix.Statfs_t
			if err := unix.Statfs(p, &st); err != nil {
				return fmt.Sprintf("%s: %v", p, err)
			}
			free := float64(st.Bavail) * float64(st.Bsize) / (1 << 30)
			if free < c.MinFreeGB {
				return fmt.Sprintf("%s has %.2f GB free (minimum %g GB)", p, free, c.MinFreeGB)
			}
		}
		return ""
	case cc.CheckMounts:
		for _, p := range c.Paths {
			if err := answersWithin(p, time.Duration(c.TimeoutSeconds)*time.Second); err != nil {
				return err.Error()
			}
		}
		return ""
	case cc.CheckSlurmd, cc.CheckMunge:
		d := map[string]string{cc.CheckSlurmd: "slurmd", cc.CheckMunge: "munged"}[c.Name]
		if !r.alive(d) {
			return d + " is not running"
		}
		return ""
	}
	return ""
}

// memoryRepair asks nvidia-smi for the row remapper and ECC sections of its log, where the driver
// reports pending and failed memory repairs.
func (r *healthRunner) memoryRepair(ctx context.Context) ([]gpuMemoryRepair, error) {
	var outs []string
	for _, d := range []string{"ROW_REMAPPER", "ECC"} {
		out, err := r.tool(ctx, "nvidia-smi", "-q", "-d", d)
		if err != nil {
			return nil, fmt.Errorf("nvidia-smi -q -d %s: %v", d, err)
		}
		outs = append(outs, out)
	}
	return parseMemoryRepair(outs...)
}

// nvlinkNoLinks reports whether `nvidia-smi nvlink -e` output lists no links: nothing at all, or
// only the GPU header lines.
func nvlinkNoLinks(out string) bool {
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); l != "" && !nvlinkGPURE.MatchString(l) {
			return false
		}
	}
	return true
}

// answersWithin lists a mount point in the background: a hung NFS or Lustre server blocks the
// call forever, so only the timeout can tell.
func answersWithin(p string, timeout time.Duration) error {
	done := make(chan error, 1)
	go func() {
		_, err := os.ReadDir(p)
		if err == nil {
			var st unix.Statfs_t
			err = unix.Statfs(p, &st)
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("%s: %v", p, err)
		}
		return nil
	case <-time.After(timeout):
		return fmt.Errorf("%s did not answer within %s", p, timeout)
	}
}

// processRunning reports whether a process of that name runs in this VM (its PID namespace).
func processRunning(name string) bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
		if err == nil && strings.TrimSpace(string(b)) == name {
			return true
		}
	}
	return false
}

// errNoHealthPlan: the controller has published no plan (no policy applies).
var errNoHealthPlan = errors.New("no health plan published")

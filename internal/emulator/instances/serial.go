package instances

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// maxSerialBuffer is how much console output Compute keeps per port (1 MB); older output is dropped and
// getSerialPortOutput reports the first offset still held in "start".
const maxSerialBuffer = 1 << 20

// serialLogs is the synthetic console of VMs that no runtime boots: a few lines per lifecycle event, so tools that
// tail the console (and the provider's bootstrap diagnostics) see a boot happen. Kept in memory, outside the
// store: it is output, not state.
type serialLogs struct {
	mu   sync.Mutex
	logs map[string]*serialLog
}

type serialLog struct {
	base int64 // offset of buf[0] in the whole stream
	buf  []byte
}

func newSerialLogs() *serialLogs { return &serialLogs{logs: map[string]*serialLog{}} }

func (l *serialLogs) appendLine(key string, t time.Time, line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	lg := l.logs[key]
	if lg == nil {
		lg = &serialLog{}
		l.logs[key] = lg
	}
	lg.buf = append(lg.buf, t.UTC().Format("Jan _2 15:04:05 ")+line+"\n"...)
	if over := len(lg.buf) - maxSerialBuffer; over > 0 {
		lg.buf = append([]byte(nil), lg.buf[over:]...)
		lg.base += int64(over)
	}
}

func (l *serialLogs) appendLines(key string, t time.Time, lines ...string) {
	for _, ln := range lines {
		l.appendLine(key, t, ln)
	}
}

// boot writes a plausible boot sequence for inst.
func (l *serialLogs) boot(key string, inst *computepb.Instance, t time.Time) {
	name := inst.GetName()
	ip := ""
	if len(inst.GetNetworkInterfaces()) > 0 {
		ip = inst.GetNetworkInterfaces()[0].GetNetworkIP()
	}
	l.appendLines(key, t,
		"SeaBIOS (version 1.8.2-google)",
		"Booting from Hard Disk 0...",
		"[    0.000000] Linux version 6.1.0-hypercompute (emulated kernel)",
		"[    0.000000] Command line: BOOT_IMAGE=/boot/vmlinuz root=/dev/sda1 ro console=ttyS0,38400n8",
		fmt.Sprintf("[    1.204511] hypercompute-emulator: machine type %s", lastSegment(inst.GetMachineType())),
		fmt.Sprintf("[    2.318702] google_network_daemon: eth0 has address %s", ip),
		"[    3.102233] google_metadata_script_runner: Starting startup scripts.",
		"[    3.102871] hypercompute-emulator: API-only emulation, no guest processes run on this VM.",
		fmt.Sprintf("%s login: ", name),
	)
}

func (l *serialLogs) reset(key string, inst *computepb.Instance, t time.Time) {
	l.appendLine(key, t, "[ 1000.000000] reboot: Restarting system (reset requested through the API)")
	l.boot(key, inst, t)
}

func (l *serialLogs) drop(key string) {
	l.mu.Lock()
	delete(l.logs, key)
	l.mu.Unlock()
}

// read returns the output from start and the offset to continue at; like Compute, a start before the oldest
// byte held begins at the oldest byte and says so in the returned start.
func (l *serialLogs) read(key string, start int64) (string, int64, int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	lg := l.logs[key]
	if lg == nil {
		return "", 0, 0
	}
	end := lg.base + int64(len(lg.buf))
	if start < lg.base {
		start = lg.base
	}
	if start >= end {
		return "", end, end
	}
	return string(lg.buf[start-lg.base:]), start, end
}

func (s *Service) getSerialPortOutput(w http.ResponseWriter, r *http.Request) {
	key, _, ok := s.instanceFor(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	port := int64(1)
	if v := q.Get("port"); v != "" {
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil || n < 1 || n > 4 {
			fail(w, r, core.InvalidField("port", v, "Must be between 1 and 4."))
			return
		}
		port = n
	}
	var start int64
	if v := q.Get("start"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			fail(w, r, core.InvalidField("start", v, "Must be an integer."))
			return
		}
		start = n
	}
	var contents string
	var from, next int64
	rt, _, wk := s.hooks()
	switch {
	case port != 1:
		from, next = 0, 0
	case rt != nil && wk != nil && wk.isBooted(key):
		c, n, err := rt.SerialOutput(key, max(start, 0))
		if err != nil {
			fail(w, r, core.Internal("reading the serial console: "+err.Error()))
			return
		}
		contents, from, next = c, n-int64(len(c)), n
	default:
		if start < 0 {
			// A negative start counts back from the end, as the API allows.
			_, _, end := s.serial.read(key, 0)
			start = max(end+start, 0)
		}
		contents, from, next = s.serial.read(key, start)
	}
	core.WriteJSON(w, http.StatusOK, &computepb.SerialPortOutput{
		Kind:     proto.String("compute#serialPortOutput"),
		Contents: proto.String(strings.ToValidUTF8(contents, "\uFFFD")),
		Start:    proto.Int64(from),
		Next:     proto.Int64(next),
		SelfLink: proto.String(core.SelfLink(key) + "/serialPort?port=" + strconv.FormatInt(port, 10)),
	})
}

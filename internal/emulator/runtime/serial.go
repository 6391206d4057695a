//go:build linux

package vmruntime

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"
)

// serialLog is a host's serial console: the file the emulator's
// getSerialPortOutput reads. It survives resets, like the console buffer.
type serialLog struct {
	mu   sync.Mutex
	path string
}

func (s *serialLog) printf(format string, args ...any) {
	s.write([]byte(time.Now().UTC().Format("Jan _2 15:04:05 ") + fmt.Sprintf(format, args...) + "\n"))
}

func (s *serialLog) write(p []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := os.OpenFile(s.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	f.Write(p)
	f.Close()
}

// read returns the log from byte offset start and the offset to continue at.
// Like the API, a start past the end returns nothing and next = the end.
func (s *serialLog) read(start int64) (string, int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := os.Open(s.path)
	if os.IsNotExist(err) {
		return "", 0, nil
	}
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", 0, err
	}
	size := fi.Size()
	if start < 0 {
		start = 0
	}
	if start >= size {
		return "", size, nil
	}
	buf := make([]byte, size-start)
	if _, err := f.ReadAt(buf, start); err != nil && err != io.EOF {
		return "", 0, err
	}
	return string(buf), size, nil
}

// scriptOutput turns the startup script's raw output into console lines
// "startup-script: ..." and recognizes the runner's end marker, which carries
// the exit status in-band so it is logged after the script's last line.
type scriptOutput struct {
	log     *serialLog
	marker  []byte
	partial []byte
	onExit  func(code int)
}

func (o *scriptOutput) Write(p []byte) (int, error) {
	o.partial = append(o.partial, p...)
	for {
		i := bytes.IndexByte(o.partial, '\n')
		if i < 0 {
			break
		}
		o.line(o.partial[:i])
		o.partial = o.partial[i+1:]
	}
	return len(p), nil
}

func (o *scriptOutput) line(l []byte) {
	// The marker ends the line (after any unterminated last line of the
	// script) and is followed by the exit status only.
	if j := bytes.LastIndex(l, o.marker); j >= 0 {
		if code, err := strconv.Atoi(string(l[j+len(o.marker):])); err == nil {
			if j > 0 {
				o.log.printf("startup-script: %s", l[:j])
			}
			o.onExit(code)
			return
		}
	}
	o.log.printf("startup-script: %s", l)
}

func (o *scriptOutput) flush() {
	if len(o.partial) > 0 {
		o.line(o.partial)
		o.partial = nil
	}
}

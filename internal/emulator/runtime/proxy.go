//go:build linux

package vmruntime

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	goruntime "runtime"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// listenInNetns opens TCP listeners inside a network namespace. The sockets
// stay in that namespace after the thread returns to the machine's, so the
// emulator serves hosts without any address of its own on their networks.
func listenInNetns(nsPath string, addrs []string) ([]net.Listener, error) {
	type result struct {
		ls  []net.Listener
		err error
	}
	ch := make(chan result, 1)
	go func() {
		goruntime.LockOSThread()
		orig, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			goruntime.UnlockOSThread()
			ch <- result{err: fmt.Errorf("own netns: %w", err)}
			return
		}
		defer unix.Close(orig)
		target, err := unix.Open(nsPath, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			goruntime.UnlockOSThread()
			ch <- result{err: fmt.Errorf("host netns: %w", err)}
			return
		}
		defer unix.Close(target)
		if err := unix.Setns(target, unix.CLONE_NEWNET); err != nil {
			goruntime.UnlockOSThread()
			ch <- result{err: fmt.Errorf("entering %s: %w", nsPath, err)}
			return
		}
		var res result
		for _, a := range addrs {
			l, err := net.Listen("tcp4", a)
			if err != nil {
				res.err = fmt.Errorf("listening on %s in %s: %w", a, nsPath, err)
				break
			}
			res.ls = append(res.ls, l)
		}
		if err := unix.Setns(orig, unix.CLONE_NEWNET); err != nil {
			// The thread is stuck in the host's netns: leave it locked so the Go
			// runtime retires it instead of running other goroutines there.
			res.err = errors.Join(res.err, fmt.Errorf("returning to own netns: %w", err))
		} else {
			goruntime.UnlockOSThread()
		}
		if res.err != nil {
			for _, l := range res.ls {
				l.Close()
			}
			res.ls = nil
		}
		ch <- res
	}()
	res := <-ch
	return res.ls, res.err
}

// proxyTCP forwards every connection accepted on l to target in the root
// namespace, until l is closed. Streams are copied raw, so long polls
// (metadata wait_for_change) and any protocol work.
func proxyTCP(l net.Listener, target func() string) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			addr := target()
			if addr == "" {
				return
			}
			up, err := net.DialTimeout("tcp", addr, 5*time.Second)
			if err != nil {
				return
			}
			defer up.Close()
			var wg sync.WaitGroup
			wg.Add(2)
			pipe := func(dst, src net.Conn) {
				defer wg.Done()
				io.Copy(dst, src)
				if tc, ok := dst.(*net.TCPConn); ok {
					tc.CloseWrite()
				}
			}
			go pipe(up, c)
			go pipe(c, up)
			wg.Wait()
		}()
	}
}

// serviceHandler is the runtime's own API inside a host, used by the mount
// helpers: GET /v1/storage/resolve?fstype=nfs&source=10.0.0.2:/share answers
// 200 with the in-host path to bind-mount, or an error status with the reason
// as plain text (which the helper prints).
func (r *Runtime) serviceHandler(hostID string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/storage/resolve", func(w http.ResponseWriter, req *http.Request) {
		fstype, source := req.URL.Query().Get("fstype"), req.URL.Query().Get("source")
		if fstype == "" || source == "" {
			http.Error(w, "fstype and source are required", http.StatusBadRequest)
			return
		}
		if r.cfg.ResolveStorage == nil {
			http.Error(w, "the emulator provides no "+fstype+" storage (no storage resolver configured)", http.StatusNotFound)
			return
		}
		dir, err := r.cfg.ResolveStorage(fstype, source)
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		if !filepath.IsAbs(dir) {
			http.Error(w, fmt.Sprintf("resolver returned relative path %q for %s", dir, source), http.StatusInternalServerError)
			return
		}
		fi, err := os.Stat(dir)
		if err != nil || !fi.IsDir() {
			http.Error(w, fmt.Sprintf("backing directory %s of %s is missing", dir, source), http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, inHostRootView+filepath.Clean(dir))
	})
	return mux
}

// hostListeners opens the three link-local services of a host.
func (r *Runtime) hostListeners(h *host) error {
	addrs := []string{MetadataIP + ":80", EmulatorIP + ":80", ServiceIP + ":80"}
	ls, err := listenInNetns(netnsPath(h.netns), addrs)
	if err != nil {
		return err
	}
	metadata := h.spec.MetadataAddr
	go proxyTCP(ls[0], func() string { return metadata })
	go proxyTCP(ls[1], func() string { return r.emulatorAddr })
	srv := &http.Server{Handler: r.serviceHandler(h.spec.ID), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ls[2])
	// Sockets pin their netns: all of these must close before the host's goes.
	h.closers = []io.Closer{ls[0], ls[1], srv}
	return nil
}

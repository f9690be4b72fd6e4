package adb

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Forward makes the server listen on local ("tcp:8700", "tcp:0" for any free
// port) and connect each connection to remote on the device ("jdwp:1234",
// "tcp:8000"). It returns the local spec actually bound ("tcp:40123").
func (c *Client) Forward(ctx context.Context, serial, local, remote string) (bound string, err error) {
	req := "host-serial:" + serial + ":forward:" + local + ";" + remote
	nc, err := c.open(ctx, req)
	if err != nil {
		return "", err
	}
	err = exchange(ctx, nc, "adb "+req, func(nc net.Conn) error {
		// The first OKAY accepted the request; the second reports the forward made.
		if err := ReadStatus(nc, req); err != nil {
			return err
		}
		bound = local
		if local == "tcp:0" {
			port, err := ReadMessage(nc)
			if err != nil {
				return fmt.Errorf("reading the port bound: %w", err)
			}
			bound = "tcp:" + strings.TrimSpace(port)
		}
		return nil
	})
	return bound, err
}

// ForwardJDWP forwards a local TCP port (0 for any free one) to process pid's
// JDWP and returns the port. Debuggers attach to localhost:PORT.
func (c *Client) ForwardJDWP(ctx context.Context, serial string, port, pid int) (int, error) {
	local, err := c.Forward(ctx, serial, "tcp:"+strconv.Itoa(port), "jdwp:"+strconv.Itoa(pid))
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(strings.TrimPrefix(local, "tcp:"))
	if err != nil {
		return 0, fmt.Errorf("adb forward: bound %q, not a TCP port", local)
	}
	return n, nil
}

// Forwards lists the server's forwards, of every device (host:list-forward).
func (c *Client) Forwards(ctx context.Context) ([]ForwardRule, error) {
	body, err := c.query(ctx, "host:list-forward")
	if err != nil {
		return nil, err
	}
	return ParseForwards(body)
}

// RemoveForward removes the forward from local ("tcp:8700").
func (c *Client) RemoveForward(ctx context.Context, serial, local string) error {
	return c.hostSerial(ctx, serial, "killforward:"+local)
}

// RemoveAllForwards removes every forward of the device.
func (c *Client) RemoveAllForwards(ctx context.Context, serial string) error {
	return c.hostSerial(ctx, serial, "killforward-all")
}

// hostSerial runs a host-serial request answered by OKAY OKAY (or OKAY FAIL).
func (c *Client) hostSerial(ctx context.Context, serial, what string) error {
	req := "host-serial:" + serial + ":" + what
	nc, err := c.open(ctx, req)
	if err != nil {
		return err
	}
	return exchange(ctx, nc, "adb "+req, func(nc net.Conn) error { return ReadStatus(nc, req) })
}

// Shell runs cmd with the device's shell (shell:CMD) and returns what it
// printed, stdout and stderr together, as `adb shell` v1 does. The exit
// status is not reported by this protocol; callers check the output.
func (c *Client) Shell(ctx context.Context, serial, cmd string) (string, error) {
	return c.runService(ctx, serial, "shell:"+cmd)
}

// ShellArgs runs a command whose arguments are quoted for the device shell.
func (c *Client) ShellArgs(ctx context.Context, serial string, args ...string) (string, error) {
	return c.Shell(ctx, serial, QuoteArgs(args))
}

// QuoteArgs joins args into one shell command line, single-quoting those
// that need it.
func QuoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
			q[i] = a
			continue
		}
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

// Props returns the device's system properties (getprop).
func (c *Client) Props(ctx context.Context, serial string) (map[string]string, error) {
	out, err := c.Shell(ctx, serial, "getprop")
	if err != nil {
		return nil, err
	}
	return ParseProps(out), nil
}

// ErrNoProcess is returned (wrapped) by ProcessName for a pid that does not
// exist on the device.
var ErrNoProcess = errors.New("no such process")

// ProcessName returns the name a process gave itself (argv[0] from
// /proc/PID/cmdline): the package name for an app, "<pre-initialized>" for
// a zygote child not yet specialised.
func (c *Client) ProcessName(ctx context.Context, serial string, pid int) (string, error) {
	out, err := c.Shell(ctx, serial, fmt.Sprintf("cat /proc/%d/cmdline", pid))
	if err != nil {
		return "", err
	}
	if strings.Contains(out, "No such file") {
		return "", fmt.Errorf("adb -s %s: process %d: %w", serial, pid, ErrNoProcess)
	}
	name, _, _ := strings.Cut(out, "\x00")
	return strings.TrimSpace(name), nil
}

// StartActivity runs `am start [-D] -n COMPONENT`. activity is a class name,
// ".Relative" to the package, or a whole "pkg/.Activity" component; with
// waitForDebugger the app starts and waits for a debugger (-D).
func (c *Client) StartActivity(ctx context.Context, serial, pkg, activity string, waitForDebugger bool) (string, error) {
	comp := activity
	if !strings.Contains(activity, "/") {
		comp = pkg + "/" + activity
	}
	args := []string{"-n", comp}
	if waitForDebugger {
		args = append([]string{"-D"}, args...)
	}
	return c.AmStart(ctx, serial, args...)
}

// AmStart runs `am start ARGS…` (a launch config's amStartArgs) and returns
// am's output; "Error:" output becomes an error.
func (c *Client) AmStart(ctx context.Context, serial string, args ...string) (string, error) {
	out, err := c.ShellArgs(ctx, serial, append([]string{"am", "start"}, args...)...)
	if err != nil {
		return out, err
	}
	var errs []string
	for line := range strings.SplitSeq(out, "\n") {
		if line = strings.TrimSpace(line); strings.HasPrefix(line, "Error") {
			errs = append(errs, line)
		}
	}
	if len(errs) > 0 {
		return out, fmt.Errorf("adb -s %s: am start %s: %s", serial, QuoteArgs(args), strings.Join(errs, "; "))
	}
	return out, nil
}

// RemoteTempDir is where Install pushes an APK before `pm install`.
const RemoteTempDir = "/data/local/tmp"

// Install installs (or replaces) an APK: it pushes apkFile to
// RemoteTempDir, runs `pm install -r -t`, and removes the copy.
func (c *Client) Install(ctx context.Context, serial, apkFile string) error {
	f, err := os.Open(apkFile)
	if err != nil {
		return fmt.Errorf("install %s: %w", apkFile, err)
	}
	defer f.Close()
	remote := path.Join(RemoteTempDir, filepath.Base(apkFile))
	if err := c.Push(ctx, serial, f, remote, 0o644, time.Now()); err != nil {
		return fmt.Errorf("install %s: %w", apkFile, err)
	}
	out, err := c.ShellArgs(ctx, serial, "pm", "install", "-r", "-t", remote)
	c.ShellArgs(ctx, serial, "rm", "-f", remote)
	if err != nil {
		return fmt.Errorf("install %s: %w", apkFile, err)
	}
	if !strings.Contains(out, "Success") {
		return fmt.Errorf("install %s: pm install: %s", apkFile, strings.TrimSpace(out))
	}
	return nil
}

// Sync protocol (the sync: service): requests are 4 ASCII bytes, a
// little-endian u32 and data; files go as SEND "path,mode", DATA chunks of at
// most SyncDataMax bytes, and DONE with the mtime, answered OKAY or FAIL.
const SyncDataMax = 64 << 10

func syncRequest(id string, n uint32, data []byte) []byte {
	b := make([]byte, 8, 8+len(data))
	copy(b, id)
	binary.LittleEndian.PutUint32(b[4:], n)
	return append(b, data...)
}

// Push copies r to remote on the device with the given permission bits and
// modification time (`adb push`).
func (c *Client) Push(ctx context.Context, serial string, r io.Reader, remote string, mode os.FileMode, mtime time.Time) error {
	nc, err := c.OpenService(ctx, serial, "sync:")
	if err != nil {
		return err
	}
	return exchange(ctx, nc, fmt.Sprintf("adb -s %s push %s", serial, remote), func(nc net.Conn) error {
		return push(nc, r, remote, mode, mtime)
	})
}

func push(nc io.ReadWriter, r io.Reader, remote string, mode os.FileMode, mtime time.Time) error {
	spec := fmt.Sprintf("%s,%d", remote, 0o100000|uint32(mode.Perm()))
	if _, err := nc.Write(syncRequest("SEND", uint32(len(spec)), []byte(spec))); err != nil {
		return err
	}
	buf := make([]byte, SyncDataMax)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if _, werr := nc.Write(syncRequest("DATA", uint32(n), buf[:n])); werr != nil {
				return werr
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
	}
	if _, err := nc.Write(syncRequest("DONE", uint32(mtime.Unix()), nil)); err != nil {
		return err
	}
	if err := ReadSyncStatus(nc); err != nil {
		return err
	}
	_, err := nc.Write(syncRequest("QUIT", 0, nil))
	return err
}

// Pull copies remote from the device to w (`adb pull`), at most max bytes:
// a longer file is an error, and what was written of it is not complete.
func (c *Client) Pull(ctx context.Context, serial, remote string, w io.Writer, max int64) error {
	nc, err := c.OpenService(ctx, serial, "sync:")
	if err != nil {
		return err
	}
	return exchange(ctx, nc, fmt.Sprintf("adb -s %s pull %s", serial, remote), func(nc net.Conn) error {
		return pull(nc, remote, w, max)
	})
}

// pull sends RECV and copies the DATA chunks that answer it until DONE; FAIL
// carries the device's message.
func pull(nc io.ReadWriter, remote string, w io.Writer, max int64) error {
	if _, err := nc.Write(syncRequest("RECV", uint32(len(remote)), []byte(remote))); err != nil {
		return err
	}
	r := bufio.NewReader(nc)
	var total int64
	buf := make([]byte, SyncDataMax)
	for {
		var hdr [8]byte
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return fmt.Errorf("sync: reading the file: %w", err)
		}
		n := binary.LittleEndian.Uint32(hdr[4:])
		switch string(hdr[:4]) {
		case "DATA":
			if n > SyncDataMax {
				return fmt.Errorf("sync: a %d-byte DATA chunk (at most %d)", n, SyncDataMax)
			}
			if total += int64(n); total > max {
				return fmt.Errorf("sync: %s is larger than %d bytes", remote, max)
			}
			if _, err := io.ReadFull(r, buf[:n]); err != nil {
				return fmt.Errorf("sync: reading the file: %w", err)
			}
			if _, err := w.Write(buf[:n]); err != nil {
				return err
			}
		case "DONE":
			_, err := nc.Write(syncRequest("QUIT", 0, nil))
			return err
		case "FAIL":
			if n > 4096 {
				return fmt.Errorf("sync: FAIL with a %d-byte message", n)
			}
			msg := make([]byte, n)
			if _, err := io.ReadFull(r, msg); err != nil {
				return fmt.Errorf("sync: FAIL with an unreadable message: %w", err)
			}
			return fmt.Errorf("sync: %s", msg)
		default:
			return fmt.Errorf("sync: unexpected answer %q", hdr[:4])
		}
	}
}

// ReadSyncStatus reads a sync answer: OKAY and a zero length, or FAIL and a
// message.
func ReadSyncStatus(r io.Reader) error {
	var hdr [8]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return fmt.Errorf("sync: reading the answer: %w", err)
	}
	n := binary.LittleEndian.Uint32(hdr[4:])
	switch string(hdr[:4]) {
	case "OKAY":
		return nil
	case "FAIL":
		if n > MaxMessage {
			return fmt.Errorf("sync: FAIL with a %d-byte message", n)
		}
		msg := make([]byte, n)
		if _, err := io.ReadFull(r, msg); err != nil {
			return fmt.Errorf("sync: FAIL with an unreadable message: %w", err)
		}
		return fmt.Errorf("sync: %s", msg)
	}
	return fmt.Errorf("sync: unexpected answer %q", hdr[:4])
}

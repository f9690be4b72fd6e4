package simdevice

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/ddmbridge/ddmbridge/bridge/adb"
)

// service resolves a service name to its handler, or refuses it. Services
// that can be refused (jdwp:PID) decide here, before the OPEN is accepted.
func (d *Device) service(name string) (func(s *stream), error) {
	kind, arg, _ := strings.Cut(name, ":")
	switch {
	case name == "track-jdwp":
		return d.trackJDWP, nil
	case name == "track-app" && slices.Contains(d.opt.Features, adb.FeatureTrackApp):
		return d.trackApp, nil
	case name == "jdwp":
		return func(s *stream) {
			pids, _ := d.pids()
			io.WriteString(s, adb.EncodePIDs(pids))
		}, nil
	case kind == "jdwp":
		pid, err := strconv.Atoi(arg)
		if err != nil {
			return nil, fmt.Errorf("bad pid %q", arg)
		}
		vm, release, err := d.attach(pid)
		if err != nil {
			return nil, err
		}
		return func(s *stream) {
			defer release()
			pipe(s, vm)
		}, nil
	case kind == "shell" || strings.HasPrefix(kind, "shell,"):
		// shell:CMD is v1 (one byte stream); shell,v2,…:CMD frames output.
		v2 := false
		for _, o := range strings.Split(kind, ",")[1:] {
			v2 = v2 || o == "v2"
		}
		if words, ok := logcatCommand(arg); ok {
			return func(s *stream) { d.serveLogcat(s, words[1:], v2) }, nil // it streams
		}
		return func(s *stream) { d.serveShell(s, arg, v2, true) }, nil
	case kind == "exec":
		return func(s *stream) { d.serveShell(s, arg, false, false) }, nil
	case name == "sync:":
		return func(s *stream) { d.serveSync(s) }, nil
	}
	return nil, errors.New("unknown service")
}

// trackJDWP sends the pid list at once and on every change, until the
// stream closes.
func (d *Device) trackJDWP(s *stream) {
	last, first := "", true
	for {
		pids, changed := d.pids()
		if body := adb.EncodePIDs(pids); body != last || first {
			first = false
			msg, _ := adb.EncodeMessage(body)
			if _, err := s.Write(msg); err != nil {
				return
			}
			last = body
		}
		select {
		case <-changed:
		case <-s.Done():
			return
		}
	}
}

// trackApp sends the AppProcesses list at once and on every change, until
// the stream closes (adbd's track-app: hex4 length, binary protobuf).
func (d *Device) trackApp(s *stream) {
	var last []byte
	first := true
	for {
		apps, changed := d.apps()
		if body := adb.EncodeAppProcesses(apps); !bytes.Equal(body, last) || first {
			first = false
			if len(body) > adb.MaxMessage {
				body = body[:0] // adbd truncates; the simulator never lists that many
			}
			msg := append(fmt.Appendf(nil, "%04x", len(body)), body...)
			if _, err := s.Write(msg); err != nil {
				return
			}
			last = body
		}
		select {
		case <-changed:
		case <-s.Done():
			return
		}
	}
}

// pipe copies both ways until either side ends.
func pipe(s *stream, vm io.ReadWriteCloser) {
	done := make(chan struct{})
	go func() {
		io.Copy(vm, s)
		vm.Close()
		close(done)
	}()
	io.Copy(s, vm)
	s.Close()
	vm.Close()
	<-done
}

// Shell v2 packet ids: u8 id, u32 LE length, data.
const (
	shellStdin      = 0
	shellStdout     = 1
	shellStderr     = 2
	shellExit       = 3
	shellCloseStdin = 4
)

func shellPacket(id byte, data []byte) []byte {
	b := make([]byte, 5, 5+len(data))
	b[0] = id
	binary.LittleEndian.PutUint32(b[1:], uint32(len(data)))
	return append(b, data...)
}

// serveShell answers a command from the table of simulated commands; nothing
// the peer sends is ever executed. v1 merges stderr into the stream (withErr)
// and loses the exit status; exec: drops stderr.
func (d *Device) serveShell(s *stream, cmd string, v2, withErr bool) {
	r := d.runShell(cmd)
	d.log.Debug().Str("cmd", cmd).Int("exit", r.code).Msg("shell")
	if v2 {
		var b []byte
		if r.stdout != "" {
			b = append(b, shellPacket(shellStdout, []byte(r.stdout))...)
		}
		if r.stderr != "" {
			b = append(b, shellPacket(shellStderr, []byte(r.stderr))...)
		}
		b = append(b, shellPacket(shellExit, []byte{byte(r.code)})...)
		s.Write(b)
		return
	}
	out := r.stdout
	if withErr {
		out += r.stderr
	}
	io.WriteString(s, out)
}

// Sync protocol ids (requests and answers: 4 ASCII bytes, u32 LE, data).
const maxSyncPath = 1024

// SyncRequest is one decoded sync request header.
type SyncRequest struct {
	ID  string
	Arg uint32
}

// ReadSyncRequest reads an 8-byte sync header.
func ReadSyncRequest(r io.Reader) (SyncRequest, error) {
	var h [8]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return SyncRequest{}, err
	}
	return SyncRequest{ID: string(h[:4]), Arg: binary.LittleEndian.Uint32(h[4:])}, nil
}

func syncAnswer(id string, arg uint32, data []byte) []byte {
	b := make([]byte, 8, 8+len(data))
	copy(b, id)
	binary.LittleEndian.PutUint32(b[4:], arg)
	return append(b, data...)
}

func syncFail(msg string) []byte { return syncAnswer("FAIL", uint32(len(msg)), []byte(msg)) }

// serveSync implements the sync: requests `adb push`, `adb pull` and our
// client use: STAT (only directories and files pushed or written by the
// shell exist), SEND/DATA/DONE, RECV (answered DATA… DONE, or FAIL), QUIT.
func (d *Device) serveSync(s io.ReadWriter) {
	r := bufio.NewReader(s)
	for {
		req, err := ReadSyncRequest(r)
		if err != nil {
			return
		}
		switch req.ID {
		case "QUIT":
			return
		case "STAT", "SEND", "RECV":
			if req.Arg > maxSyncPath {
				s.Write(syncFail("path too long"))
				return
			}
			p := make([]byte, req.Arg)
			if _, err := io.ReadFull(r, p); err != nil {
				return
			}
			if req.ID == "STAT" {
				s.Write(d.stat(string(p)))
				continue
			}
			if req.ID == "RECV" {
				d.sendFile(s, string(p))
				continue
			}
			if !d.receiveFile(r, s, string(p)) {
				return
			}
		default:
			s.Write(syncFail("unsupported sync request " + strconv.Quote(req.ID)))
			return
		}
	}
}

// sendFile answers RECV: the file in DATA chunks of at most SyncDataMax
// bytes, then DONE; FAIL when there is no such file.
func (d *Device) sendFile(s io.Writer, path string) {
	d.mu.Lock()
	data, ok := d.files[path]
	d.mu.Unlock()
	if !ok {
		s.Write(syncFail(path + ": No such file or directory"))
		return
	}
	for len(data) > 0 {
		n := min(len(data), adb.SyncDataMax)
		if _, err := s.Write(syncAnswer("DATA", uint32(n), data[:n])); err != nil {
			return
		}
		data = data[n:]
	}
	s.Write(syncAnswer("DONE", 0, nil))
}

// stat answers STAT: mode, size, mtime (all zero: not found).
func (d *Device) stat(path string) []byte {
	var mode, size uint32
	d.mu.Lock()
	data, ok := d.files[path]
	d.mu.Unlock()
	switch {
	case ok:
		mode, size = 0o100644, uint32(len(data))
	case simDirs[strings.TrimSuffix(path, "/")] || path == "/":
		mode = 0o40771
	}
	b := make([]byte, 8)
	binary.LittleEndian.PutUint32(b, size)
	return syncAnswer("STAT", mode, b)
}

// receiveFile reads DATA chunks until DONE and stores the file.
func (d *Device) receiveFile(r io.Reader, s io.Writer, spec string) bool {
	path, _, _ := strings.Cut(spec, ",")
	var data []byte
	for {
		req, err := ReadSyncRequest(r)
		if err != nil {
			return false
		}
		switch req.ID {
		case "DATA":
			if req.Arg > adb.SyncDataMax || len(data)+int(req.Arg) > maxFile {
				s.Write(syncFail("file too large for the simulated device"))
				return false
			}
			chunk := make([]byte, req.Arg)
			if _, err := io.ReadFull(r, chunk); err != nil {
				return false
			}
			data = append(data, chunk...)
		case "DONE":
			if !strings.HasPrefix(path, "/data/local/tmp/") && !strings.HasPrefix(path, "/sdcard/") {
				s.Write(syncFail(fmt.Sprintf("couldn't create file: Permission denied (%s)", path)))
				return true
			}
			d.mu.Lock()
			d.files[path] = data
			d.mu.Unlock()
			d.log.Debug().Str("path", path).Int("bytes", len(data)).Msg("file pushed")
			_, err := s.Write(syncAnswer("OKAY", 0, nil))
			return err == nil
		default:
			s.Write(syncFail("expected DATA or DONE, got " + strconv.Quote(req.ID)))
			return false
		}
	}
}

// simDirs are the directories STAT reports (`adb push FILE DIR` asks).
var simDirs = map[string]bool{"/sdcard": true, "/data/local/tmp": true}

// maxFile bounds a pushed file; the simulated device keeps files in memory.
const maxFile = 256 << 20

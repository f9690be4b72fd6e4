package simdevice

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm/simvm"
)

func TestMessageWire(t *testing.T) {
	m := &Message{Command: OPEN, Arg0: 7, Arg1: 0, Data: []byte("shell:ls\x00")}
	b := m.Encode(true)
	le := binary.LittleEndian
	if string(b[:4]) != "OPEN" || le.Uint32(b[4:]) != 7 || le.Uint32(b[12:]) != 9 ||
		le.Uint32(b[16:]) != Checksum(m.Data) || le.Uint32(b[20:]) != uint32(OPEN)^0xFFFFFFFF {
		t.Fatalf("header % x", b[:24])
	}
	if le.Uint32(m.Encode(false)[16:]) != 0 {
		t.Error("data_check set without checksums")
	}
	got, err := ReadMessage(bytes.NewReader(b), MaxPayload)
	if err != nil || !reflect.DeepEqual(got, m) {
		t.Fatalf("round trip: %v, %v", got, err)
	}
	bad := bytes.Clone(b)
	bad[20] ^= 1
	if _, err := ReadMessage(bytes.NewReader(bad), MaxPayload); !errors.Is(err, ErrBadMagic) {
		t.Errorf("bad magic: %v", err)
	}
	if _, err := ReadMessage(bytes.NewReader(b), 4); err == nil {
		t.Error("oversized payload accepted")
	}
	if CNXN.String() != "CNXN" || Command(1).String() != "0x00000001" {
		t.Error("Command.String")
	}
}

func TestSplitCommand(t *testing.T) {
	for in, want := range map[string][]string{
		"getprop ro.product.model":              {"getprop", "ro.product.model"},
		`am start -n 'com.x/.Main'  -e k "a b"`: {"am", "start", "-n", "com.x/.Main", "-e", "k", "a b"},
		`echo 'it'\''s' "q\"x" a\ b ''`:         {"echo", "it's", `q"x`, "a b", ""},
		"":                                      nil,
	} {
		got, err := SplitCommand(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"ls; reboot", "cat x | sh", "echo $(id)", "echo `id`", `echo "$HOME"`, "a > b", "sleep 1 &"} {
		if _, err := SplitCommand(in); !errors.Is(err, ErrUnsupportedSyntax) {
			t.Errorf("SplitCommand(%q) = %v; want refusal", in, err)
		}
	}
	if _, err := SplitCommand("echo 'open"); err == nil {
		t.Error("unterminated quote accepted")
	}
}

func TestShellTable(t *testing.T) {
	d := New(Options{Model: "M", Packages: []string{"com.example.app"}, VM: simvm.Options{Tick: time.Hour, GCInterval: time.Hour}})
	defer d.Close()
	pid, _ := d.AddProcess(ProcessOptions{Name: "com.example.one"})
	for _, tc := range []struct {
		cmd, out string
		code     int
	}{
		{"getprop ro.product.model", "M\n", 0},
		{"cat /proc/1000/cmdline", "com.example.one\x00", 0},
		{"cat /proc/4/cmdline", "cat: /proc/4/cmdline: No such file or directory\n", 1},
		{"pidof com.example.one", "1000\n", 0},
		{"reboot", "/system/bin/sh: reboot: inaccessible or not found\n", 127},
		{"rm -rf /; reboot", "/system/bin/sh: simulated shell: " + ErrUnsupportedSyntax.Error() + "\n", 2},
		{"am start -D -n com.example.app/.Main", "Starting: Intent { cmp=com.example.app/.Main }\n", 0},
		{"am start -n com.example.none/.Main", "Starting: Intent { cmp=com.example.none/.Main }\nError type 3\nError: Activity class {com.example.none/com.example.none.Main} does not exist.\n", 1},
		{"pm list packages", "package:com.example.app\n", 0},
		{"pm install /data/local/tmp/missing.apk", "Error: Unable to open file: /data/local/tmp/missing.apk\nConsider using a file under /data/local/tmp/\n", 1},
	} {
		r := d.runShell(tc.cmd)
		if r.stdout+r.stderr != tc.out || r.code != tc.code {
			t.Errorf("%s: %q exit %d; want %q exit %d", tc.cmd, r.stdout+r.stderr, r.code, tc.out, tc.code)
		}
	}
	if ps := d.Processes(); len(ps) != 2 || ps[0].PID != pid || ps[1].Name != "com.example.app" || !ps[1].WaitingForDebugger {
		t.Errorf("processes after am start -D: %+v", ps)
	}
	d.runShell("am force-stop com.example.app")
	if ps := d.Processes(); len(ps) != 1 {
		t.Errorf("processes after force-stop: %+v", ps)
	}
}

// TestSync pushes through serveSync directly: SEND/DATA/DONE stores the
// file, STAT sees it, and writes outside the writable directories fail.
func TestSync(t *testing.T) {
	d := New(Options{})
	defer d.Close()
	var in bytes.Buffer
	req := func(id string, data []byte, arg ...uint32) {
		n := uint32(len(data))
		if len(arg) > 0 {
			n = arg[0]
		}
		in.WriteString(id)
		binary.Write(&in, binary.LittleEndian, n)
		in.Write(data)
	}
	req("SEND", []byte("/data/local/tmp/com.x.apk,33188"))
	req("DATA", []byte("hello "))
	req("DATA", []byte("world"))
	req("DONE", nil, 1700000000)
	req("STAT", []byte("/data/local/tmp/com.x.apk"))
	req("SEND", []byte("/system/x,33188"))
	req("DONE", nil, 0)
	req("QUIT", nil)
	var out bytes.Buffer
	d.serveSync(readWriter{bytes.NewReader(in.Bytes()), &out})
	got := out.String()
	if !strings.HasPrefix(got, "OKAY\x00\x00\x00\x00STAT\xa4\x81\x00\x00\x0b\x00\x00\x00") || !strings.Contains(got, "FAIL") || !strings.Contains(got, "Permission denied") {
		t.Errorf("sync answers %q", got)
	}
	if r := d.runShell("cat /data/local/tmp/com.x.apk"); r.stdout != "hello world" {
		t.Errorf("pushed file reads %q", r.stdout)
	}
	if r := d.runShell("pm install -r /data/local/tmp/com.x.apk"); r.stdout != "Success\n" {
		t.Errorf("pm install: %+v", r)
	}
}

// TestTransportHandshake plays the adb server by hand: CNXN at the legacy
// version makes the device checksum its messages, unknown services are
// refused with CLSE, and AUTH is asked for and accepted when enabled.
func TestTransportHandshake(t *testing.T) {
	for _, auth := range []bool{false, true} {
		d := New(Options{Auth: auth, MaxPayload: 4096})
		ln, _ := net.Listen("tcp", "127.0.0.1:0")
		go d.Serve(ln)
		nc, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		nc.SetDeadline(time.Now().Add(10 * time.Second))
		write := func(m *Message) {
			if _, err := nc.Write(m.Encode(true)); err != nil {
				t.Fatal(err)
			}
		}
		read := func(want Command) *Message {
			t.Helper()
			m, err := ReadMessage(nc, MaxPayload)
			if err != nil {
				t.Fatal(err)
			}
			if m.Command != want {
				t.Fatalf("got %v, want %v", m, want)
			}
			return m
		}
		write(&Message{Command: CNXN, Arg0: VersionMin, Arg1: MaxPayload, Data: []byte("host::features=shell_v2")})
		if auth {
			tok := read(AUTH)
			if tok.Arg0 != AuthToken || len(tok.Data) != 20 {
				t.Fatalf("AUTH token %v", tok)
			}
			write(&Message{Command: AUTH, Arg0: AuthSignature, Data: make([]byte, 256)})
		}
		m := read(CNXN)
		if m.Arg1 != 4096 || !strings.HasPrefix(string(m.Data), "device::ro.product.name=sim;") || !strings.HasSuffix(string(m.Data), "features=shell_v2,cmd") {
			t.Errorf("banner %v %q", m, m.Data)
		}
		write(&Message{Command: OPEN, Arg0: 5, Data: []byte("frobnicate:\x00")})
		if m := read(CLSE); m.Arg0 != 0 || m.Arg1 != 5 {
			t.Errorf("refusal %v", m)
		}
		// At the legacy version the device fills data_check.
		write(&Message{Command: OPEN, Arg0: 6, Data: []byte("shell:echo hi\x00")})
		okay := read(OKAY)
		raw := make([]byte, HeaderSize+3)
		if _, err := io.ReadFull(nc, raw); err != nil {
			t.Fatal(err)
		}
		if Command(binary.LittleEndian.Uint32(raw)) != WRTE || string(raw[HeaderSize:]) != "hi\n" || binary.LittleEndian.Uint32(raw[16:]) != Checksum([]byte("hi\n")) {
			t.Errorf("WRTE % x", raw)
		}
		write(&Message{Command: OKAY, Arg0: 6, Arg1: okay.Arg0})
		if m := read(CLSE); m.Arg0 != okay.Arg0 || m.Arg1 != 6 {
			t.Errorf("close %v", m)
		}
		nc.Close()
		d.Close()
	}
}

type readWriter struct {
	io.Reader
	io.Writer
}

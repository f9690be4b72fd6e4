package simdevice

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge/adb"
	"github.com/ddmbridge/ddmbridge/ddm/simvm"
)

// Fuzz targets for every decoder of what the adb server (the peer) sends.
// Seed corpora live in testdata/fuzz/<target>; regenerate them with
// ADB_WRITE_CORPUS=1 go test -run TestWriteFuzzCorpus.

func corpus() map[string][][]byte {
	cnxn := (&Message{Command: CNXN, Arg0: VersionSkipChecksum, Arg1: MaxPayload, Data: []byte("host::features=shell_v2,cmd,stat_v2")}).Encode(false)
	open := (&Message{Command: OPEN, Arg0: 7, Data: []byte("track-jdwp\x00")}).Encode(true)
	wrte := (&Message{Command: WRTE, Arg0: 7, Arg1: 1, Data: []byte("JDWP-Handshake")}).Encode(false)
	sync := func(parts ...string) []byte {
		var b bytes.Buffer
		for i := 0; i+1 < len(parts); i += 2 {
			b.WriteString(parts[i])
			fmt.Fprintf(&b, "%c%c%c%c", len(parts[i+1]), len(parts[i+1])>>8, 0, 0)
			b.WriteString(parts[i+1])
		}
		return b.Bytes()
	}
	msg := func(c Command, a0, a1 uint32, data string) []byte {
		return (&Message{Command: c, Arg0: a0, Arg1: a1, Data: []byte(data)}).Encode(false)
	}
	session := func(parts ...[]byte) []byte { return bytes.Join(append([][]byte{cnxn}, parts...), nil) }
	return map[string][][]byte{
		"FuzzTransport": {
			session(msg(OPEN, 3, 0, "shell:getprop\x00"), msg(OKAY, 3, 1, "")),
			session(msg(OPEN, 3, 0, "track-jdwp\x00"), msg(CLSE, 3, 1, "")),
			session(msg(OPEN, 3, 0, "sync:\x00"), msg(WRTE, 3, 1, "SEND\x05\x00\x00\x00/x,1"), msg(CLSE, 3, 1, "")),
			session(msg(OPEN, 3, 0, "jdwp:1000\x00"), msg(WRTE, 3, 1, "JDWP-Handshake")),
			session(msg(AUTH, 2, 0, "sig"), msg(WRTE, 9, 9, "stray"), msg(OKAY, 9, 9, "")),
			msg(OPEN, 1, 0, "shell:id\x00"),
		},
		"FuzzReadMessage": {cnxn, open, wrte, append(cnxn, open...), cnxn[:10], {}},
		"FuzzSplitCommand": {
			[]byte("getprop ro.product.model"), []byte(`am start -D -n 'com.example.app/.Main'`),
			[]byte(`echo 'it'\''s' "q\"x" a\ b`), []byte("ls; reboot"), []byte(`echo "open`),
		},
		"FuzzShell": {
			[]byte("cat /proc/1000/cmdline"), []byte("getprop"), []byte("pm install -r /data/local/tmp/com.x.apk"),
			[]byte("am start -D -n com.example.app/.Main"), []byte("am force-stop com.example.one"), []byte("ps -A"), []byte("rm /nope"),
		},
		"FuzzSync": {
			sync("SEND", "/data/local/tmp/com.x.apk,33188", "DATA", "abc", "DONE", "", "QUIT", ""),
			sync("STAT", "/data/local/tmp", "QUIT", ""),
			sync("SEND", "/system/x,33188", "DONE", ""),
			sync("RECV", "/etc/passwd"),
		},
	}
}

func TestWriteFuzzCorpus(t *testing.T) {
	if os.Getenv("ADB_WRITE_CORPUS") == "" {
		t.Skip("set ADB_WRITE_CORPUS=1 to rewrite testdata/fuzz")
	}
	for name, seeds := range corpus() {
		dir := filepath.Join("testdata", "fuzz", name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i, s := range seeds {
			body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", s)
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed%03d", i)), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func addSeeds(f *testing.F) {
	for _, s := range corpus()[f.Name()] {
		f.Add(s)
	}
}

func FuzzReadMessage(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		m, err := ReadMessage(bytes.NewReader(in), 4096)
		if err != nil {
			return
		}
		enc := m.Encode(false)
		// Everything but data_check survives a round trip.
		copy(enc[16:20], in[16:20])
		if !bytes.Equal(enc, in[:len(enc)]) {
			t.Fatalf("%v re-encoded differently", m)
		}
	})
}

func FuzzSplitCommand(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		words, err := SplitCommand(string(in))
		if err != nil || len(words) == 0 {
			return
		}
		// What the client quotes splits back into the same words.
		again, err := SplitCommand(adb.QuoteArgs(words))
		if err != nil || !reflect.DeepEqual(again, words) {
			t.Fatalf("%q → %q → %q, %v", in, words, again, err)
		}
	})
}

func FuzzShell(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		d := New(Options{Packages: []string{"com.example.app"}})
		defer d.Close()
		d.AddProcess(ProcessOptions{Name: "com.example.one"})
		r := d.runShell(string(in))
		if r.code == 0 && r.stderr != "" {
			t.Fatalf("%q: exit 0 with stderr %q", in, r.stderr)
		}
	})
}

func FuzzSync(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		d := New(Options{})
		defer d.Close()
		d.serveSync(readWriter{bytes.NewReader(in), io.Discard})
	})
}

// FuzzTransport feeds what a hostile or broken adb server might send to a
// device's transport: it must neither panic nor hang.
func FuzzTransport(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		d := New(Options{VM: simvm.Options{Tick: time.Hour, GCInterval: time.Hour}})
		defer d.Close()
		d.AddProcess(ProcessOptions{Name: "com.example.one"})
		server, device := net.Pipe()
		go io.Copy(io.Discard, server)
		done := make(chan struct{})
		go func() {
			newTransport(d, device).run()
			close(done)
		}()
		server.Write(in)
		server.Close()
		<-done
	})
}

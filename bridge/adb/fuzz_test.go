package adb

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Fuzz targets for every decoder. Seed corpora (what the v29 server really
// sends) live in testdata/fuzz/<target>; regenerate them with
// ADB_WRITE_CORPUS=1 go test -run TestWriteFuzzCorpus.

var corpus = map[string][]string{
	"FuzzReadMessage": {
		"00040029", "0000", "003a127.0.0.1:5555\tdevice\n", "ffff", "00zz", "0010short",
	},
	"FuzzParseDevices": {
		"127.0.0.1:40123\tdevice\n",
		"127.0.0.1:40123        device product:sim model:Sim device:sim transport_id:1\n",
		"127.0.0.1:40123        offline product:sim model:Sim device:sim transport_id:1\n",
		"emulator-5554          offline transport_id:2\nR58M123  unauthorized usb:2-1 transport_id:8\n",
		"0123456789ABCDEF       no permissions (user in plugdev group); see [http://developer.android.com/tools/device.html] usb:1-1 transport_id:7\n",
		"",
		"lonely\n",
	},
	"FuzzParsePIDs": {"1000\n1001\n", "", "4242\n", "12\nabc\n", "-1\n"},
	"FuzzParseForwards": {
		"127.0.0.1:40123 tcp:38099 jdwp:1000\n",
		"emulator-5554 tcp:8700 jdwp:1234\nemulator-5554 tcp:8600 tcp:8000\n",
		"", "one two\n",
	},
	"FuzzParseProps": {
		"[ro.product.model]: [Sim]\n[ro.build.version.sdk]: [34]\n",
		"[multi]: [a\nb]\n[open]: [never closed\n",
	},
	"FuzzReadSyncStatus":    {"OKAY\x00\x00\x00\x00", "FAIL\x05\x00\x00\x00nope!", "FAIL\xff\xff\xff\xff", "DATA\x00\x00\x00\x00"},
	"FuzzParseServerSocket": {"tcp:5037", "tcp:10.0.0.2:5037", "localhost:5037", "tcp:[::1]:5037", "localfilesystem:/x", "tcp:"},
}

func addSeeds(f *testing.F) {
	for _, s := range corpus[f.Name()] {
		f.Add(s)
	}
}

func TestWriteFuzzCorpus(t *testing.T) {
	if os.Getenv("ADB_WRITE_CORPUS") == "" {
		t.Skip("set ADB_WRITE_CORPUS=1 to rewrite testdata/fuzz")
	}
	for name, seeds := range corpus {
		dir := filepath.Join("testdata", "fuzz", name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i, s := range seeds {
			body := fmt.Sprintf("go test fuzz v1\nstring(%q)\n", s)
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed%03d", i)), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func FuzzReadMessage(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, in string) {
		msg, err := ReadMessage(strings.NewReader(in))
		if err != nil {
			return
		}
		enc, err := EncodeMessage(msg)
		if err != nil || !strings.EqualFold(string(enc), in[:len(enc)]) {
			t.Fatalf("re-encoded %q as %q, %v", in, enc, err)
		}
	})
}

func FuzzParseDevices(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, in string) {
		devs, err := ParseDevices(in)
		if err != nil {
			return
		}
		for _, d := range devs {
			if d.Serial == "" || d.State == "" {
				t.Fatalf("device without serial or state: %+v", d)
			}
		}
		// The short form of what was parsed parses back the same.
		var b strings.Builder
		for _, d := range devs {
			if strings.ContainsAny(string(d.State), "\t\n") || strings.ContainsAny(d.Serial, "\t\n\r") {
				return
			}
			fmt.Fprintf(&b, "%s\t%s\n", d.Serial, d.State)
		}
		again, err := ParseDevices(b.String())
		if err != nil || len(again) != len(devs) {
			t.Fatalf("short form %q: %+v, %v", b.String(), again, err)
		}
	})
}

func FuzzParsePIDs(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, in string) {
		pids, err := ParsePIDs(in)
		if err != nil {
			return
		}
		again, err := ParsePIDs(EncodePIDs(pids))
		if err != nil || !reflect.DeepEqual(again, pids) {
			t.Fatalf("%v re-parsed as %v, %v", pids, again, err)
		}
	})
}

func FuzzParseForwards(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, in string) {
		rules, err := ParseForwards(in)
		if err != nil {
			return
		}
		var b strings.Builder
		for _, r := range rules {
			fmt.Fprintf(&b, "%s %s %s\n", r.Serial, r.Local, r.Remote)
		}
		again, err := ParseForwards(b.String())
		if err != nil || !reflect.DeepEqual(again, rules) {
			t.Fatalf("%+v re-parsed as %+v, %v", rules, again, err)
		}
	})
}

func FuzzParseProps(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, in string) {
		for k := range ParseProps(in) {
			if strings.Contains(k, "]: [") {
				t.Fatalf("key %q holds a separator", k)
			}
		}
	})
}

func FuzzReadSyncStatus(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, in string) {
		err := ReadSyncStatus(strings.NewReader(in))
		if err == nil && !strings.HasPrefix(in, "OKAY") {
			t.Fatalf("%q accepted", in)
		}
	})
}

func FuzzParseServerSocket(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, in string) {
		addr, err := ParseServerSocket(in)
		if err != nil {
			return
		}
		if _, _, err := net.SplitHostPort(addr); err != nil {
			t.Fatalf("%q gave %q: %v", in, addr, err)
		}
	})
}

// pullConn is a sync connection whose answers are fixed bytes; what the
// client writes is dropped.
type pullConn struct{ io.Reader }

func (pullConn) Write(b []byte) (int, error) { return len(b), nil }

// FuzzPull: a device's answers to RECV never make pull read past a chunk's
// bound, write more than max bytes, or succeed without DONE.
func FuzzPull(f *testing.F) {
	f.Add([]byte("DATA\x03\x00\x00\x00abcDONE\x00\x00\x00\x00"))
	f.Add([]byte("FAIL\x05\x00\x00\x00nope!"))
	f.Add([]byte("DATA\xff\xff\xff\xff"))
	f.Add([]byte("DONE\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, in []byte) {
		var out bytes.Buffer
		err := pull(pullConn{bytes.NewReader(in)}, "/data/local/tmp/x.hprof", &out, 1<<16)
		if out.Len() > 1<<16 {
			t.Fatalf("wrote %d bytes, max %d", out.Len(), 1<<16)
		}
		if err == nil && !bytes.Contains(in, []byte("DONE")) {
			t.Fatalf("success without DONE on %q", in)
		}
	})
}

package adb

import (
	"reflect"
	"testing"
)

func init() {
	corpus["FuzzParseAppProcesses"] = []string{
		string(EncodeAppProcesses([]AppProcess{{PID: 1000, Debuggable: true, Architecture: "arm64"}})),
		string(EncodeAppProcesses([]AppProcess{{PID: 1000, Debuggable: true, Profileable: true, Architecture: "x86_64", AppInfo: true,
			ProcessName: "com.example.app:remote", PackageNames: []string{"com.example.app", "com.example.shared"}, WaitingForDebugger: true, UID: 10123}},
		)),
		string(EncodeAppProcesses([]AppProcess{{PID: 7, Profileable: true}, {PID: 8, Debuggable: true, AppInfo: true, UserID: 10}})),
		"", "\x0a\x00", "\x0a\x02\x08\x00", "\x0a\x05\x08\xe8\x07\x78\x01", "\x0a\xff\xff\xff\xff\x0f", "\x0b", "\x0a\x03\x08\xe8",
	}
}

// TestAppProcessesLayout decodes a message built by hand the way adbd's
// protobuf library writes it: an Android 12–14 entry (fields 1–4), an
// Android 15 entry with app_info (5–9, zeros written as they are
// explicitly optional) and a field from a future adbd, which is skipped.
func TestAppProcessesLayout(t *testing.T) {
	old := []byte{0x08, 0xe8, 0x07, 0x10, 0x01, 0x22, 0x05, 'a', 'r', 'm', '6', '4'}
	cur := []byte{0x08, 0xe9, 0x07, 0x18, 0x01, 0x22, 0x06, 'x', '8', '6', '_', '6', '4',
		0x28, 0x00, 0x32, 0x03, 'a', ':', 'b', 0x3a, 0x01, 'a', 0x3a, 0x01, 'c', 0x40, 0x01, 0x48, 0xfb, 0x4e,
		0x80, 0x01, 0x2a, // field 16 varint 42: unknown
		0x5d, 1, 2, 3, 4, // field 11 fixed32: unknown
	}
	msg := append([]byte{0x0a, byte(len(old))}, old...)
	msg = append(msg, 0x0a, byte(len(cur)))
	msg = append(msg, cur...)
	got, err := ParseAppProcesses(msg)
	if err != nil {
		t.Fatal(err)
	}
	want := []AppProcess{
		{PID: 1000, Debuggable: true, Architecture: "arm64"},
		{PID: 1001, Profileable: true, Architecture: "x86_64", AppInfo: true, ProcessName: "a:b", PackageNames: []string{"a", "c"}, WaitingForDebugger: true, UID: 10107},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	again, err := ParseAppProcesses(EncodeAppProcesses(want))
	if err != nil || !reflect.DeepEqual(again, want) {
		t.Fatalf("round trip: %+v, %v", again, err)
	}
	for _, bad := range []string{"\x0a\x05\x08", "\x0a\x02\x10\x01", "\x0a\x03\x22\x05a", "\x08\x01\x0a\x02\x08", "\x0f"} {
		if ps, err := ParseAppProcesses([]byte(bad)); err == nil {
			t.Errorf("%q accepted as %+v", bad, ps)
		}
	}
}

func FuzzParseAppProcesses(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, in string) {
		ps, err := ParseAppProcesses([]byte(in))
		if err != nil {
			return
		}
		for _, p := range ps {
			if p.PID <= 0 {
				t.Fatalf("entry without a pid: %+v", p)
			}
		}
		// What was parsed encodes and parses back the same (AppInfo entries
		// carry every app_info field once encoded).
		again, err := ParseAppProcesses(EncodeAppProcesses(ps))
		if err != nil || len(again) != len(ps) {
			t.Fatalf("%+v re-parsed as %+v, %v", ps, again, err)
		}
		for i := range ps {
			if !again[i].Equal(ps[i]) && !(len(ps[i].PackageNames) == 0 && again[i].PackageNames == nil) {
				t.Fatalf("%+v re-parsed as %+v", ps[i], again[i])
			}
		}
	})
}

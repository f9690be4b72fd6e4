package adb

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestMessageFraming(t *testing.T) {
	b, err := EncodeMessage("host:version")
	if err != nil || string(b) != "000chost:version" {
		t.Fatalf("EncodeMessage = %q, %v", b, err)
	}
	if _, err := EncodeMessage(strings.Repeat("x", MaxMessage+1)); err == nil {
		t.Error("oversized message encoded")
	}
	got, err := ReadMessage(strings.NewReader("0004002900"))
	if err != nil || got != "0029" {
		t.Errorf("ReadMessage = %q, %v", got, err)
	}
	if _, err := ReadMessage(strings.NewReader("00zz")); err == nil {
		t.Error("bad hex accepted")
	}
	if _, err := ReadMessage(strings.NewReader("0010abc")); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("short body: %v", err)
	}
	if v, _ := ParseHexLength([]byte("00FF")); v != 255 {
		t.Errorf("uppercase hex = %d", v)
	}
}

func TestReadStatus(t *testing.T) {
	if err := ReadStatus(strings.NewReader("OKAY"), "x"); err != nil {
		t.Error(err)
	}
	err := ReadStatus(strings.NewReader("FAIL0010device not found"), "host:transport:x")
	var fe *FailError
	if !errors.As(err, &fe) || fe.Message != "device not found" || fe.Request != "host:transport:x" {
		t.Errorf("FAIL = %v", err)
	}
	if err := ReadStatus(strings.NewReader("HTTP/1.1"), "x"); err == nil || !strings.Contains(err.Error(), "neither OKAY nor FAIL") {
		t.Errorf("garbage: %v", err)
	}
	if err := ReadStatus(strings.NewReader(""), "x"); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("EOF: %v", err)
	}
}

func TestParseDevices(t *testing.T) {
	body := "emulator-5554\tdevice\n" +
		"127.0.0.1:5555         device product:sim model:Sim_Phone device:sim transport_id:3\n" +
		"0123456789ABCDEF       no permissions (user in plugdev group; are your udev rules wrong?); see [http://developer.android.com/tools/device.html] usb:1-1 transport_id:7\n" +
		"R58M123               unauthorized usb:2-1 transport_id:8\n\n"
	got, err := ParseDevices(body)
	if err != nil {
		t.Fatal(err)
	}
	want := []Device{
		{Serial: "emulator-5554", State: StateDevice},
		{Serial: "127.0.0.1:5555", State: StateDevice, Product: "sim", Model: "Sim_Phone", Name: "sim", TransportID: 3},
		{Serial: "0123456789ABCDEF", State: "no permissions (user in plugdev group; are your udev rules wrong?); see [http://developer.android.com/tools/device.html]", USB: "1-1", TransportID: 7},
		{Serial: "R58M123", State: StateUnauthorized, USB: "2-1", TransportID: 8},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseDevices:\n got %+v\nwant %+v", got, want)
	}
	if got, err := ParseDevices(""); err != nil || got != nil {
		t.Errorf("empty list = %v, %v", got, err)
	}
	if _, err := ParseDevices("lonely\n"); err == nil {
		t.Error("a line without a state was accepted")
	}
}

func TestParsePIDsAndForwards(t *testing.T) {
	if p, err := ParsePIDs("123\n4567\n"); err != nil || !reflect.DeepEqual(p, []int{123, 4567}) {
		t.Errorf("ParsePIDs = %v, %v", p, err)
	}
	if _, err := ParsePIDs("12\nabc\n"); err == nil {
		t.Error("bad pid accepted")
	}
	if EncodePIDs([]int{1, 22}) != "1\n22\n" {
		t.Error("EncodePIDs")
	}
	f, err := ParseForwards("emulator-5554 tcp:8700 jdwp:1234\n127.0.0.1:5555 tcp:40000 tcp:8000\n")
	if err != nil || len(f) != 2 || f[0] != (ForwardRule{"emulator-5554", "tcp:8700", "jdwp:1234"}) {
		t.Errorf("ParseForwards = %+v, %v", f, err)
	}
	if _, err := ParseForwards("only two\n"); err == nil {
		t.Error("bad forward line accepted")
	}
}

func TestParseProps(t *testing.T) {
	got := ParseProps("[ro.product.model]: [Pixel 7]\r\n[multi]: [line one\nline two]\n[empty]: []\nnoise\n")
	want := map[string]string{"ro.product.model": "Pixel 7", "multi": "line one\nline two", "empty": ""}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseProps = %q", got)
	}
}

func TestServerAddr(t *testing.T) {
	for _, tc := range []struct{ socket, port, want, err string }{
		{"", "", "127.0.0.1:5037", ""},
		{"", "15037", "127.0.0.1:15037", ""},
		{"", "nope", "", "ANDROID_ADB_SERVER_PORT"},
		{"tcp:6000", "15037", "127.0.0.1:6000", ""},
		{"tcp:192.168.1.2:6001", "", "192.168.1.2:6001", ""},
		{"localhost:6002", "", "127.0.0.1:6002", ""},
		{"tcp:[::1]:6003", "", "[::1]:6003", ""},
		{"localfilesystem:/tmp/adb", "", "", "ADB_SERVER_SOCKET"},
		{"tcp:99999", "", "", "not a port"},
	} {
		t.Setenv("ADB_SERVER_SOCKET", tc.socket)
		t.Setenv("ANDROID_ADB_SERVER_PORT", tc.port)
		got, err := ServerAddr()
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q/%q: error %v, want one mentioning %q", tc.socket, tc.port, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q/%q: %q, %v; want %q", tc.socket, tc.port, got, err, tc.want)
		}
	}
}

func TestQuoteArgs(t *testing.T) {
	got := QuoteArgs([]string{"am", "start", "-n", "com.x/.Main", "it's", "", "a b"})
	if got != `am start -n com.x/.Main 'it'\''s' '' 'a b'` {
		t.Errorf("QuoteArgs = %s", got)
	}
}

func TestPushWire(t *testing.T) {
	var w bytes.Buffer
	rw := struct {
		io.Reader
		io.Writer
	}{strings.NewReader("OKAY\x00\x00\x00\x00"), &w}
	data := bytes.Repeat([]byte("z"), SyncDataMax+10)
	if err := push(rw, bytes.NewReader(data), "/data/local/tmp/a.apk", 0o644, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	b := w.Bytes()
	spec := "/data/local/tmp/a.apk,33188"
	if string(b[:4]) != "SEND" || string(b[8:8+len(spec)]) != spec {
		t.Fatalf("SEND %q", b[:40])
	}
	b = b[8+len(spec):]
	if string(b[:4]) != "DATA" || b[4] != 0 || b[5] != 0 || b[6] != 1 { // 65536 LE
		t.Fatalf("first DATA header %q", b[:8])
	}
	if !bytes.HasSuffix(w.Bytes(), []byte("QUIT\x00\x00\x00\x00")) {
		t.Error("no QUIT")
	}
	if err := ReadSyncStatus(strings.NewReader("FAIL\x05\x00\x00\x00nope!")); err == nil || !strings.Contains(err.Error(), "nope!") {
		t.Errorf("sync FAIL: %v", err)
	}
}

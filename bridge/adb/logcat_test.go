package adb_test

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge/adb"
	"github.com/ddmbridge/ddmbridge/bridge/adb/simdevice"
)

// TestLogcatThroughRealServer: the simulated device's logcat, read through
// Debian's real adb server, both by the client (--pid, -T count, -T time,
// following new lines) and by the real `adb logcat` command.
func TestLogcatThroughRealServer(t *testing.T) {
	t.Parallel()
	srv, ctx, dev, serial, pids := onDevice(t, simdevice.Options{}, "com.example.one", "com.example.two")
	one, two := pids[0], pids[1]
	for i := range 5 {
		dev.Log(one, one+1, "I", "One", fmt.Sprintf("line %d", i))
		dev.Log(two, two, "W", "Two", fmt.Sprintf("other %d", i))
	}

	// --pid and -T 3: one's last three lines (logd counts the lines its filter passes).
	lines := make(chan adb.LogLine, 100)
	fctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- srv.Client.Logcat(fctx, serial, adb.LogcatOptions{PID: one, Tail: 3}, func(l adb.LogLine) { lines <- l })
	}()
	next := func() adb.LogLine {
		t.Helper()
		select {
		case l := <-lines:
			return l
		case <-time.After(60 * time.Second):
			t.Fatal("no log line")
		}
		return adb.LogLine{}
	}
	for i := 2; i < 5; i++ {
		if l := next(); l.PID != one || l.TID != one+1 || l.Level != "I" || l.Tag != "One" || l.Message != fmt.Sprintf("line %d", i) {
			t.Errorf("line %d: %+v", i, l)
		}
	}
	dev.Log(two, two, "E", "Two", "not this one")
	dev.Log(one, one+1, "E", "One", "followed: a tag's colon: kept")
	if l := next(); l.Level != "E" || l.Message != "followed: a tag's colon: kept" {
		t.Errorf("followed line %+v", l)
	}
	stop()
	<-done

	// -T with a time: from that line on.
	since := time.Now()
	for time.Now().Format(adb.LogTimeLayout) == since.Format(adb.LogTimeLayout) {
		// the log's clock must move past `since` (millisecond times)
	}
	dev.Log(one, one, "D", "One", "after the mark")
	got := make(chan adb.LogLine, 10)
	fctx, stop = context.WithCancel(ctx)
	defer stop()
	go srv.Client.Logcat(fctx, serial, adb.LogcatOptions{PID: one, Since: since.Format(adb.LogTimeLayout)}, func(l adb.LogLine) { got <- l })
	select {
	case l := <-got:
		if l.Message != "after the mark" {
			t.Errorf("-T TIME: first line %+v", l)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("-T TIME: no line")
	}

	// The real adb command: `adb logcat -d --pid=PID` prints threadtime lines.
	cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(cctx, "adb", "-P", fmt.Sprint(srv.Port), "-s", serial, "logcat", "-d", "-v", "threadtime", fmt.Sprintf("--pid=%d", two))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("adb logcat: %v\n%s", err, out)
	}
	var parsed int
	for _, s := range strings.Split(string(out), "\n") {
		if l, ok := adb.ParseThreadtime(s); ok {
			parsed++
			if l.PID != two || l.Tag != "Two" {
				t.Errorf("adb logcat --pid=%d printed %q", two, s)
			}
		}
	}
	if parsed != 6 {
		t.Errorf("adb logcat -d: %d of two's lines, want 6:\n%s", parsed, out)
	}
}

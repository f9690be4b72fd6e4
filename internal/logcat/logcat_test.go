package logcat_test

import (
	"strings"
	"testing"

	"github.com/ddmbridge/ddmbridge/internal/logcat"
)

func TestThreadtimeRoundTrip(t *testing.T) {
	for _, l := range []logcat.Line{
		{Time: "12-04 04:16:28.123", PID: 1000, TID: 1012, Level: "W", Tag: "MyTag", Message: "the message"},
		{Time: "01-31 23:59:59.999", PID: 123456, TID: 7, Level: "F", Tag: "a longer tag with spaces", Message: ""},
		{Time: "06-01 00:00:00.000", PID: 1, TID: 1, Level: "V", Tag: "T", Message: "x: y: z"},
	} {
		s := strings.TrimSuffix(logcat.FormatThreadtime(l), "\n")
		got, ok := logcat.ParseThreadtime(s)
		if !ok || got != l {
			t.Errorf("%q parsed as %+v, %v; want %+v", s, got, ok, l)
		}
	}
	for _, s := range []string{"--------- beginning of main", "", "12-04 04:16:28.123  1000  1012 Q Tag: x", "12-04 04:16:28.123 x 1012 W Tag: x"} {
		if l, ok := logcat.ParseThreadtime(s); ok {
			t.Errorf("%q parsed as %+v", s, l)
		}
	}
}

func FuzzParseThreadtime(f *testing.F) {
	f.Add("12-04 04:16:28.123  1000  1012 W MyTag   : the message")
	f.Add("--------- beginning of main")
	f.Add("01-01 00:00:00.000     1     1 F a       :")
	f.Fuzz(func(t *testing.T, s string) {
		l, ok := logcat.ParseThreadtime(s)
		if !ok {
			return
		}
		if l.PID < 0 || l.TID < 0 || len(l.Level) != 1 {
			t.Fatalf("%q parsed as %+v", s, l)
		}
		// What parses formats back to a line that parses the same (tags
		// lose trailing spaces, which threadtime pads anyway).
		again, ok := logcat.ParseThreadtime(strings.TrimSuffix(logcat.FormatThreadtime(l), "\n"))
		if !ok || again.PID != l.PID || again.Level != l.Level || again.Time != l.Time {
			t.Fatalf("%q: %+v reformatted parses as %+v, %v", s, l, again, ok)
		}
	})
}

func TestFilter(t *testing.T) {
	l := logcat.Line{Level: "W", Tag: "A"}
	for _, c := range []struct {
		f    logcat.Filter
		pass bool
	}{
		{logcat.Filter{}, true}, {logcat.Filter{Level: "W"}, true}, {logcat.Filter{Level: "E"}, false},
		{logcat.Filter{Tags: []string{"B", "A"}}, true}, {logcat.Filter{Level: "V", Tags: []string{"B"}}, false},
	} {
		if got := c.f.Pass(l); got != c.pass {
			t.Errorf("%+v passes %+v: %v, want %v", c.f, l, got, c.pass)
		}
	}
	if err := (logcat.Filter{Level: "X"}).Check(); err == nil || !strings.Contains(err.Error(), "not one of") {
		t.Errorf("level X: %v", err)
	}
}

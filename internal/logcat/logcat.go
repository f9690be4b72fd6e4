package logcat

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Line is one line of an Android device's log as `logcat -v threadtime`
// prints it: "12-04 04:16:28.123  1000  1012 W MyTag   : the message".
type Line struct {
	Time    string `json:"time"`    // MM-DD HH:MM:SS.mmm, the device's clock (no year, no zone)
	PID     int    `json:"pid"`     // the process that logged it
	TID     int    `json:"tid"`     // its thread
	Level   string `json:"level"`   // V, D, I, W, E, F (or A, S)
	Tag     string `json:"tag"`     // the tag, without its padding
	Message string `json:"message"` // the message line
}

// Levels are logcat's priorities, lowest first.
const Levels = "VDIWEF"

// LevelRank orders a level letter (V 0 … F 5, A like F); an unknown
// letter ranks as V.
func LevelRank(level string) int {
	if level == "A" {
		return 5
	}
	if i := strings.Index(Levels, level); i >= 0 && len(level) == 1 {
		return i
	}
	return 0
}

// TimeLayout is the time layout of threadtime lines and of logcat's `-T`
// argument.
const TimeLayout = "01-02 15:04:05.000"

// FormatThreadtime writes l as `logcat -v threadtime` does (liblog's
// "%s %5d %5d %c %-8s: %s"), with its newline.
func FormatThreadtime(l Line) string {
	return fmt.Sprintf("%s %5d %5d %s %-8s: %s\n", l.Time, l.PID, l.TID, l.Level, l.Tag, l.Message)
}

// ParseThreadtime parses one threadtime line (without its newline). Lines
// that are not log lines (logcat's "--------- beginning of main") give
// false.
func ParseThreadtime(s string) (Line, bool) {
	s = strings.TrimSuffix(s, "\r")
	if len(s) < len(TimeLayout)+1 {
		return Line{}, false
	}
	tm := s[:len(TimeLayout)]
	if _, err := time.Parse(TimeLayout, tm); err != nil {
		return Line{}, false
	}
	rest := s[len(TimeLayout):]
	var fields [3]string
	for i := range fields {
		rest = strings.TrimLeft(rest, " ")
		end := strings.IndexByte(rest, ' ')
		if end < 0 {
			return Line{}, false
		}
		fields[i], rest = rest[:end], rest[end+1:]
	}
	pid, err1 := strconv.Atoi(fields[0])
	tid, err2 := strconv.Atoi(fields[1])
	if err1 != nil || err2 != nil || pid < 0 || tid < 0 || len(fields[2]) != 1 || !strings.Contains(Levels+"AS", fields[2]) {
		return Line{}, false
	}
	tag, msg, ok := strings.Cut(rest, ": ")
	if !ok {
		// An empty message: "TAG     :" at the end of the line.
		tag, ok = strings.CutSuffix(rest, ":")
		if !ok {
			return Line{}, false
		}
	}
	return Line{Time: tm, PID: pid, TID: tid, Level: fields[2], Tag: strings.TrimRight(tag, " "), Message: msg}, true
}

// ErrNoDeviceLog marks a VM that has no device log to follow: it runs on
// the workstation, whose output is the process's own.
var ErrNoDeviceLog = errors.New("logcat needs an app on an Android device")

// Filter selects the lines a subscriber is given.
type Filter struct {
	Level string   `json:"level,omitempty"` // the lowest level shown: V (all, the default), D, I, W, E, F
	Tags  []string `json:"tags,omitempty"`  // only these tags; all when empty
}

// Check reports a filter that cannot be applied, in words.
func (f Filter) Check() error {
	if f.Level != "" && (len(f.Level) != 1 || !strings.Contains(Levels, f.Level)) {
		return fmt.Errorf("log level %q is not one of V, D, I, W, E, F", f.Level)
	}
	return nil
}

// Pass reports whether l passes the filter.
func (f Filter) Pass(l Line) bool {
	if f.Level != "" && LevelRank(l.Level) < LevelRank(f.Level) {
		return false
	}
	return len(f.Tags) == 0 || slices.Contains(f.Tags, l.Tag)
}

// Batch is one batch of an app's log lines handed to a subscriber.
type Batch struct {
	ID      string `json:"id"`      // the VM's id
	PID     int    `json:"pid"`     // the app's pid on its device (a new one after a restart)
	Lines   []Line `json:"lines"`   // in order
	Dropped int64  `json:"dropped"` // lines dropped before these since the last batch (the queue was full)
}

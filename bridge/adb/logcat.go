package adb

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// LogLine is one line of an Android device's log as `logcat -v threadtime`
// prints it: "12-04 04:16:28.123  1000  1012 W MyTag   : the message".
type LogLine struct {
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

// LogTimeLayout is the time layout of threadtime lines and of logcat's
// `-T` argument.
const LogTimeLayout = "01-02 15:04:05.000"

// FormatThreadtime writes l as `logcat -v threadtime` does (liblog's
// "%s %5d %5d %c %-8s: %s").
func FormatThreadtime(l LogLine) string {
	return fmt.Sprintf("%s %5d %5d %s %-8s: %s\n", l.Time, l.PID, l.TID, l.Level, l.Tag, l.Message)
}

// ParseThreadtime parses one threadtime line (without its newline). Lines
// that are not log lines (logcat's "--------- beginning of main") give
// false.
func ParseThreadtime(s string) (LogLine, bool) {
	s = strings.TrimSuffix(s, "\r")
	// The time: "MM-DD HH:MM:SS.mmm", 18 bytes.
	if len(s) < len(LogTimeLayout)+1 {
		return LogLine{}, false
	}
	tm := s[:len(LogTimeLayout)]
	if _, err := time.Parse(LogTimeLayout, tm); err != nil {
		return LogLine{}, false
	}
	rest := s[len(LogTimeLayout):]
	var fields [3]string
	for i := range fields {
		rest = strings.TrimLeft(rest, " ")
		end := strings.IndexByte(rest, ' ')
		if end < 0 {
			return LogLine{}, false
		}
		fields[i], rest = rest[:end], rest[end+1:]
	}
	pid, err1 := strconv.Atoi(fields[0])
	tid, err2 := strconv.Atoi(fields[1])
	if err1 != nil || err2 != nil || pid < 0 || tid < 0 || len(fields[2]) != 1 || !strings.Contains(Levels+"AS", fields[2]) {
		return LogLine{}, false
	}
	tag, msg, ok := strings.Cut(rest, ": ")
	if !ok {
		// An empty message: "TAG     :" at the end of the line.
		tag, ok = strings.CutSuffix(rest, ":")
		if !ok {
			return LogLine{}, false
		}
	}
	return LogLine{Time: tm, PID: pid, TID: tid, Level: fields[2], Tag: strings.TrimRight(tag, " "), Message: msg}, true
}

// LogcatOptions select what Logcat follows.
type LogcatOptions struct {
	PID int // only this process's lines (--pid), 0 for all
	// Since is where to start: a threadtime time ("MM-DD HH:MM:SS.mmm",
	// lines at or after it); else the last Tail lines (-T N); with
	// neither, the last line and new ones (-T 1).
	Since string
	Tail  int
}

// Args are the logcat command line for o.
func (o LogcatOptions) Args() []string {
	args := []string{"logcat", "-v", "threadtime"}
	if o.PID > 0 {
		args = append(args, "--pid="+strconv.Itoa(o.PID))
	}
	switch {
	case o.Since != "":
		args = append(args, "-T", o.Since)
	case o.Tail > 0:
		args = append(args, "-T", strconv.Itoa(o.Tail))
	default:
		args = append(args, "-T", "1")
	}
	return args
}

// Logcat follows the device's log (`logcat -v threadtime` through the
// shell service) until ctx ends or the stream does, calling line for each
// log line as it arrives, in order. line must not block long: the device
// drops lines for a reader that falls behind (logd does), so a slow reader
// loses lines there rather than here. ctx bounds the whole stream.
func (c *Client) Logcat(ctx context.Context, serial string, o LogcatOptions, line func(LogLine)) error {
	nc, err := c.OpenService(ctx, serial, "shell:"+QuoteArgs(o.Args()))
	if err != nil {
		return fmt.Errorf("logcat on %s: %w", serial, err)
	}
	stop := context.AfterFunc(ctx, func() { nc.Close() })
	defer stop()
	defer nc.Close()
	return scanLog(nc, line)
}

// maxLogLine bounds one line read from logcat (logd's own limit is about
// 4 KiB per entry); a longer line is cut.
const maxLogLine = 64 << 10

func scanLog(r io.Reader, line func(LogLine)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		b, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A line longer than the buffer: keep its head, skip the rest.
			head := string(b)
			for err == bufio.ErrBufferFull {
				_, err = br.ReadSlice('\n')
			}
			b = []byte(head[:min(len(head), maxLogLine)])
		}
		if len(b) > 0 {
			if l, ok := ParseThreadtime(strings.TrimSuffix(string(b), "\n")); ok {
				line(l)
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

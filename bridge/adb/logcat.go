package adb

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ddmbridge/ddmbridge/internal/logcat"
)

// LogLine is one line of a device's log (package internal/logcat).
type LogLine = logcat.Line

// Levels are logcat's priorities, lowest first.
const Levels = logcat.Levels

// LogTimeLayout is the time layout of threadtime lines and of logcat's
// `-T` argument.
const LogTimeLayout = logcat.TimeLayout

// LevelRank orders a level letter (logcat.LevelRank).
func LevelRank(level string) int { return logcat.LevelRank(level) }

// FormatThreadtime writes l as `logcat -v threadtime` does.
func FormatThreadtime(l LogLine) string { return logcat.FormatThreadtime(l) }

// ParseThreadtime parses one threadtime line (logcat.ParseThreadtime).
func ParseThreadtime(s string) (LogLine, bool) { return logcat.ParseThreadtime(s) }

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

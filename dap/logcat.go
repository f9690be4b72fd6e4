package dap

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ddmbridge/ddmbridge/internal/logcat"
)

// An Android app's log in the Debug Console: a session on a VM the monitor
// knows on a device follows the app's logcat (its pid's lines, through its
// restarts) and writes each batch as output events, V/D/I lines as stdout
// and W/E/F lines as stderr, so the editor colours warnings and errors. The
// monitor bounds what waits for a slow editor and says what it dropped.

// LogFollower is implemented by backends that reach Android devices (the
// monitor): deliver is called with the app's log lines in batches, one call
// at a time, until ctx ends. A VM not on a device gives an error wrapping
// logcat.ErrNoDeviceLog (the session then shows no log, and says nothing).
type LogFollower interface {
	FollowLog(ctx context.Context, target string, f logcat.Filter, deliver func(logcat.Batch)) error
}

// followLog starts showing the app's log if the configuration and the
// backend allow; it stops with the session or the debuggee's release.
func (s *session) followLog(d *debuggee, target string) {
	level, tags, on := d.opts.LogcatFilter()
	lf, ok := s.cfg.Backend.(LogFollower)
	if !on || !ok || s.mon.vm == "" {
		return
	}
	ctx, cancel := context.WithCancel(s.ctx)
	d.stopLog = cancel
	err := lf.FollowLog(ctx, s.mon.vm, logcat.Filter{Level: level, Tags: tags}, func(b logcat.Batch) {
		if ctx.Err() == nil {
			s.logBatch(b)
		}
	})
	switch {
	case errors.Is(err, logcat.ErrNoDeviceLog):
		cancel()
	case err != nil:
		cancel()
		d.log.Info().Err(err).Msg("the app's log cannot be followed")
		s.output("console", fmt.Sprintf("logcat: the app's log cannot be shown: %v\n", err))
	default:
		d.log.Debug().Str("level", level).Strs("tags", tags).Msg("following the app's log")
	}
}

// logBatch writes a batch as output events: a run of lines of one category
// is one event.
func (s *session) logBatch(b logcat.Batch) {
	if b.Dropped > 0 {
		s.output("console", fmt.Sprintf("logcat: %d lines dropped (the app logged faster than the editor took them)\n", b.Dropped))
	}
	var run strings.Builder
	cat := ""
	flush := func() {
		if run.Len() > 0 {
			s.output(cat, run.String())
			run.Reset()
		}
	}
	for _, l := range b.Lines {
		c := "stdout"
		if logcat.LevelRank(l.Level) >= logcat.LevelRank("W") {
			c = "stderr"
		}
		if c != cat {
			flush()
			cat = c
		}
		run.WriteString(logcat.FormatThreadtime(l))
	}
	flush()
}

package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge"
	"github.com/ddmbridge/ddmbridge/bridge/adb"
	"github.com/ddmbridge/ddmbridge/bridge/rpc"
)

func init() {
	register(&command{name: "logcat", summary: "follow an Android app's log (its pid's lines, through its restarts) until Ctrl-C", synopsis: logcatUsage, run: runLogcat})
}

const logcatUsage = "ddmbridge logcat ID [--level V|D|I|W|E|F] [--tag TAG]... [--json] [--rpc ADDR]"

// tagList is a repeatable --tag.
type tagList []string

func (t *tagList) String() string     { return strings.Join(*t, ",") }
func (t *tagList) Set(s string) error { *t = append(*t, s); return nil }

// runLogcat prints the app's lines as `adb logcat -v threadtime` does (or
// one JSON object per line with --json) as the monitor's batches arrive,
// and says how many lines the monitor dropped when it had to.
func runLogcat(ctx context.Context, fs *flag.FlagSet, args []string) error {
	f := addCLIFlags(fs, true)
	level := fs.String("level", "", "show only lines of this level or above (V, D, I, W, E, F)")
	var tags tagList
	fs.Var(&tags, "tag", "show only lines of this tag (repeatable)")
	pos, err := parseWithOperands(ctx, fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: want %s", errUsage, logcatUsage)
	}
	filter := bridge.LogFilter{Level: strings.ToUpper(*level), Tags: tags}
	if err := filter.Check(); err != nil {
		return fmt.Errorf("%w: --level: %v", errUsage, err)
	}
	out := stdout(ctx)
	batches := make(chan bridge.LogBatch, 16)
	dctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	c, err := rpc.DialRPC(dctx, f.rpc, func(method string, params json.RawMessage) {
		if method != "vm/logcat" {
			return
		}
		var b bridge.LogBatch
		if json.Unmarshal(params, &b) == nil {
			select {
			case batches <- b: // a full channel holds the monitor's sender back: it drops and counts
			case <-ctx.Done():
			}
		}
	})
	if err != nil {
		return err
	}
	defer c.Close()
	sub, err := c.Logcat(dctx, pos[0], filter)
	if err != nil {
		return err
	}
	cancel()
	if !f.json {
		fmt.Fprintf(out, "--------- following the log of VM %s (pid %d); Ctrl-C stops\n", sub.ID, sub.PID)
	}
	pid := sub.PID
	enc := json.NewEncoder(out)
	for {
		select {
		case b := <-batches:
			if b.Dropped > 0 && !f.json {
				fmt.Fprintf(out, "--------- %d lines dropped (the log came faster than it could be passed on)\n", b.Dropped)
			}
			if b.PID != pid && !f.json {
				fmt.Fprintf(out, "--------- the app restarted: pid %d\n", b.PID)
			}
			pid = b.PID
			if f.json {
				enc.Encode(b)
				continue
			}
			var sb strings.Builder
			for _, l := range b.Lines {
				sb.WriteString(adb.FormatThreadtime(l))
			}
			if _, err := fmt.Fprint(out, sb.String()); err != nil {
				return err
			}
		case <-c.Done():
			return fmt.Errorf("the monitor closed the connection")
		case <-ctx.Done():
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			c.StopLogcat(sctx, sub.ID)
			return errInterrupted
		}
	}
}

package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// linkCeilings are the sequential JDWP round trips each action may cost over
// a slow link, directly and through the monitor: today's counts, to come
// down toward issue 39's goals (step+refresh 4, attach 6, setBreakpoints 2,
// evaluate 2), never up. A change that adds a sequential round trip to a
// step, an attach or an evaluation fails here.
var linkCeilings = map[string]int{
	actAttach:    10,
	actFirstStep: 20,
	actStep:      12,
	actSetBP:     1,
	actEvaluate:  6,
	actThreads:   2,
}

// TestLinkRoundTrips runs `bench link` over a link delayed 50 ms each way
// (a window no scheduling stall of a busy machine closes, so the counts
// are the client's, not the machine's) and holds each action's most
// sequential round trips of any run to its ceiling. It checks counts, never
// times.
func TestLinkRoundTrips(t *testing.T) {
	jvmtest.RequireJava(t)
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancel()
	rs, err := benchLink(ctx, 50*time.Millisecond, 3, []string{"direct", "monitor"}, true)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, r := range rs {
		seen[r.Client]++
		t.Logf("%-8s %-30s max %2d rt, mean %4.1f rt, %4.0f commands, %5.0f ms", r.Client, r.Action, r.MaxSeq, r.Sequential, r.Commands, r.Millis)
		ceiling, ok := linkCeilings[r.Action]
		if !ok {
			t.Errorf("no ceiling for action %q", r.Action)
			continue
		}
		if r.MaxSeq > ceiling {
			t.Errorf("%s, %s: %d sequential round trips, more than the %d it cost before", r.Client, r.Action, r.MaxSeq, ceiling)
		}
		if r.MaxSeq == 0 || r.Commands == 0 {
			t.Errorf("%s, %s: the link saw nothing (%+v)", r.Client, r.Action, r)
		}
	}
	for _, c := range []string{"direct", "monitor"} {
		if seen[c] != len(linkActions) {
			t.Errorf("%s measured %d actions, want %d", c, seen[c], len(linkActions))
		}
	}
	var b strings.Builder
	printLinkResults(&b, rs, 50*time.Millisecond, false)
	if !strings.Contains(b.String(), actStep) || !strings.Contains(b.String(), "monitor") {
		t.Errorf("the table lacks a row or a column:\n%s", b.String())
	}
}

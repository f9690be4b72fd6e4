package dap

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	godap "github.com/google/go-dap"
)

// batch sends requests at once, as VS Code does, and reads until each is
// answered; responses come back by request seq, events are noted.
func (v *vscode) batch(reqs ...[2]any) map[string]godap.ResponseMessage {
	v.c.t.Helper()
	seqs := map[int]string{}
	for _, r := range reqs {
		seqs[v.c.send(r[0].(string), r[1])] = r[0].(string) + "#" + string(rune('0'+len(seqs)))
	}
	out := map[string]godap.ResponseMessage{}
	for len(out) < len(seqs) {
		m := v.c.next()
		if r, ok := m.(godap.ResponseMessage); ok {
			if name, mine := seqs[r.GetResponse().RequestSeq]; mine {
				out[name] = r
				continue
			}
		}
		v.note(m)
	}
	return out
}

// TestSlowToStringQuickKeys: four pool workers whose Locals hold a record
// with a 3 s toString, stops suspending all threads, driven as VS Code
// drives them under quick F10/F5 presses: after each stop threads, the top
// frame (stackTrace levels 1), then scopes, the rest of the stack and the
// Locals at once, and next or continue pressed as soon as the stack is
// shown (the slow toString still running); then all breakpoints removed
// and continue. No stackTrace of a stopped thread fails, and every worker
// runs to its end: nothing the user did not stop stays stopped. Run it 20
// times in a row.
func TestSlowToStringQuickKeys(t *testing.T) {
	file := source(t, "SlowPool.java")
	c := startSession(t, Config{})
	c.send("initialize", map[string]any{"adapterID": "ddmbridge", "linesStartAt1": true, "columnsStartAt1": true, "pathFormat": "path", "supportsVariablePaging": true, "supportsInvalidatedEvent": true})
	expect[*godap.InitializeResponse](c)
	c.launch(launchArgs(t, "SlowPool", "args", "200", "suspendAllThreads", true))
	c.setBreakpoints(file, bp(t, "SlowPool.java", "slowhit"))
	c.configurationDone()
	v := &vscode{c: c}
	hit := line(t, "SlowPool.java", "slowhit")
	for i := 0; i < 6; i++ {
		s := v.nextStop()
		if s == nil {
			t.Fatalf("the program ended after %d stops", i)
		}
		th := s.ev.Body.ThreadId
		v.call("threads", nil)
		r := v.call("stackTrace", map[string]any{"threadId": th, "startFrame": 0, "levels": 1})
		top, ok := r.(*godap.StackTraceResponse)
		if !ok || len(top.Body.StackFrames) == 0 {
			t.Fatalf("stop %d (%s, thread %d): stackTrace: %s", i, s.ev.Body.Reason, th, mustJSON(r))
		}
		if s.ev.Body.Reason == "breakpoint" && top.Body.StackFrames[0].Line != hit {
			t.Errorf("stop %d: a breakpoint stop at line %d, want %d", i, top.Body.StackFrames[0].Line, hit)
		}
		frame := top.Body.StackFrames[0].Id
		got := v.batch(
			[2]any{"scopes", map[string]any{"frameId": frame}},
			[2]any{"stackTrace", map[string]any{"threadId": th, "startFrame": 1, "levels": 19}},
		)
		for name, r := range got {
			if !r.GetResponse().Success {
				t.Fatalf("stop %d: %s: %s", i, name, mustJSON(r))
			}
		}
		scopes := got["scopes#0"].(*godap.ScopesResponse).Body.Scopes
		// Locals asked, and F10 or F5 pressed while they are worked out.
		action := map[bool]string{true: "next", false: "continue"}[i%2 == 0]
		got = v.batch(
			[2]any{"variables", map[string]any{"variablesReference": scopes[0].VariablesReference}},
			[2]any{action, map[string]any{"threadId": th}},
		)
		if r := got[action+"#1"]; !r.GetResponse().Success {
			t.Fatalf("stop %d: %s: %s", i, action, mustJSON(r))
		}
	}
	// Remove All Breakpoints, then F5 (and F5 on any stop still coming: a
	// step's).
	if r := v.call("setBreakpoints", map[string]any{"source": map[string]any{"path": file}, "breakpoints": []any{}}); !r.GetResponse().Success {
		t.Fatalf("remove the breakpoints: %s", mustJSON(r))
	}
	for !v.ended {
		for len(v.stops) > 0 {
			s := v.stops[0]
			v.stops = v.stops[1:]
			v.call("continue", map[string]any{"threadId": s.ev.Body.ThreadId})
		}
		if !v.ended {
			v.note(c.next())
		}
	}
	out := c.out.String()
	for _, w := range []string{"WORKER-DONE 0", "WORKER-DONE 1", "WORKER-DONE 2", "WORKER-DONE 3", "SLOWPOOL-DONE"} {
		if !strings.Contains(out, w) {
			t.Errorf("%s missing: a worker was left suspended (output %q)", w, out)
		}
	}
}

// TestEveryHitShown: four workers hit one line at nearly the same time,
// with a hit count (conditions: TestEveryConditionalHitShown), stops
// suspending all threads or the event thread: every true hit is reported,
// each at the breakpoint's
// line with frames (its thread is held until the user continues it), and
// with all threads suspended no stop is reported and then let go by
// another's continue (each arrives in turn, after the user's continue).
// Run it 20 times in a row.
func TestEveryHitShown(t *testing.T) {
	file := source(t, "Orders.java")
	hitLine := line(t, "Orders.java", "hit")
	cases := []struct {
		name  string
		extra []string
		want  int
	}{
		{"hitCount", []string{"hitCondition", ">= 10"}, 7}, // 16 hits (4 workers × 4 rounds): the 10th to the 16th stop
	}
	for _, tc := range cases {
		for _, all := range []bool{true, false} {
			t.Run(tc.name+"/"+map[bool]string{true: "suspendAll", false: "eventThread"}[all], func(t *testing.T) {
				c := startSession(t, Config{})
				c.initialize()
				c.launch(launchArgs(t, "Orders", "args", "4", "suspendAllThreads", all))
				c.setBreakpoints(file, bp(t, "Orders.java", "hit", tc.extra...))
				c.configurationDone()
				v := &vscode{c: c}
				stops := 0
				for s := v.nextStop(); s != nil; s = v.nextStop() {
					stops++
					if all && s.epoch < v.epoch {
						t.Fatalf("stop %d (thread %d) was let go by a continue before it was seen", stops, s.ev.Body.ThreadId)
					}
					th := s.ev.Body.ThreadId
					if s.epoch == v.epoch {
						r := v.call("stackTrace", map[string]any{"threadId": th})
						if e, ok := r.(*godap.ErrorResponse); ok {
							t.Fatalf("stackTrace: %s", mustJSON(e))
						}
						fs := r.(*godap.StackTraceResponse).Body.StackFrames
						if top := fs[0]; top.Line != hitLine || !strings.Contains(top.Name, "work") {
							t.Fatalf("stop %d: %s; the thread is at %s", stops, mustJSON(s.ev), mustJSON(fs[:min(len(fs), 4)]))
						}
					}
					if !v.refresh(s) || s.epoch < v.epoch {
						continue
					}
					v.call("continue", map[string]any{"threadId": th})
				}
				if stops != tc.want {
					t.Errorf("%d stops, want %d; output %q", stops, tc.want, c.out.String())
				}
				if !strings.Contains(c.out.String(), "ORDERS-DONE") {
					t.Errorf("the program did not finish: %q", c.out.String())
				}
			})
		}
	}
}

// TestEveryConditionalHitShown: four workers reach two lines together,
// round after round (5 rounds): one with a conditional breakpoint whose
// condition calls methods in the hit's thread, one with the hit condition
// ">= 19" (20 hits); stops suspend all threads or the event thread only,
// and each is driven as VS Code drives it (threads, stackTrace, scopes,
// Locals, then continue). Every true hit stops, counted against the
// program's own output: a conditional stop for each worker and round it
// printed CHOSEN for, and as many hit-count stops as it counted hits past
// the 18th; each stop's thread is at the line of the breakpoint it names;
// and with all threads suspended no stop is let go by another's continue
// before it is seen (each waits its turn). Run it 20 times in a row.
func TestEveryConditionalHitShown(t *testing.T) {
	file := source(t, "Hits.java")
	chosenLine, countedLine := line(t, "Hits.java", "chosen"), line(t, "Hits.java", "counted")
	for _, all := range []bool{true, false} {
		t.Run(map[bool]string{true: "suspendAll", false: "eventThread"}[all], func(t *testing.T) {
			c := startSession(t, Config{})
			c.initialize()
			c.launch(launchArgs(t, "Hits", "args", "5", "suspendAllThreads", all))
			bps := c.setBreakpoints(file,
				bp(t, "Hits.java", "chosen", "condition", "chosen(worker, round) && String.valueOf(round).length() == 1"),
				bp(t, "Hits.java", "counted", "hitCondition", ">= 19"))
			if len(bps) != 2 || !bps[0].Verified || !bps[1].Verified {
				t.Fatalf("breakpoints: %s", mustJSON(bps))
			}
			lineOf := map[int]int{bps[0].Id: chosenLine, bps[1].Id: countedLine}
			c.configurationDone()
			v := &vscode{c: c}
			var chosen []string
			counted := 0
			for s := v.nextStop(); s != nil; s = v.nextStop() {
				th := s.ev.Body.ThreadId
				if s.epoch < v.epoch {
					t.Fatalf("the stop of thread %d was let go by a continue before it was seen: %s", th, mustJSON(s.ev))
				}
				ids := s.ev.Body.HitBreakpointIds
				if s.ev.Body.Reason != "breakpoint" || len(ids) != 1 || lineOf[ids[0]] == 0 {
					t.Fatalf("stop %s", mustJSON(s.ev))
				}
				must := func(r godap.ResponseMessage) godap.ResponseMessage {
					t.Helper()
					if !r.GetResponse().Success {
						t.Fatalf("after the stop %s: %s", mustJSON(s.ev), mustJSON(r))
					}
					return r
				}
				must(v.call("threads", nil))
				fs := must(v.call("stackTrace", map[string]any{"threadId": th, "startFrame": 0, "levels": 20})).(*godap.StackTraceResponse).Body.StackFrames
				if len(fs) == 0 || fs[0].Line != lineOf[ids[0]] || frameName(fs[0]) != "Hits.work" {
					t.Fatalf("stop %s: the thread is at %s, want Hits.work:%d", mustJSON(s.ev), mustJSON(fs[:min(len(fs), 3)]), lineOf[ids[0]])
				}
				scopes := must(v.call("scopes", map[string]any{"frameId": fs[0].Id})).(*godap.ScopesResponse).Body.Scopes
				vars := must(v.call("variables", map[string]any{"variablesReference": scopes[0].VariablesReference, "filter": "named"})).(*godap.VariablesResponse).Body.Variables
				local := map[string]string{}
				for _, x := range vars {
					local[x.Name] = x.Value
				}
				if lineOf[ids[0]] == chosenLine {
					chosen = append(chosen, "CHOSEN "+local["worker"]+" "+local["round"])
				} else {
					counted++
				}
				must(v.call("continue", map[string]any{"threadId": th}))
			}
			out := c.out.String()
			var printed []string
			total := -1
			for _, l := range strings.Split(out, "\n") {
				if strings.HasPrefix(l, "CHOSEN ") {
					printed = append(printed, strings.TrimSpace(l))
				}
				if i := strings.Index(l, "counted="); strings.HasPrefix(l, "HITS-DONE") && i > 0 {
					total, _ = strconv.Atoi(strings.TrimSpace(l[i+len("counted="):]))
				}
			}
			if total < 0 {
				t.Fatalf("the program did not finish: %q", out)
			}
			slices.Sort(chosen)
			slices.Sort(printed)
			if !slices.Equal(chosen, printed) {
				t.Errorf("conditional stops %q, want one for each hit the program chose: %q", chosen, printed)
			}
			if want := max(0, total-18); counted != want {
				t.Errorf("%d stops at the hit count >= 19, want %d (%d hits)", counted, want, total)
			}
		})
	}
}

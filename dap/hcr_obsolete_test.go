package dap

import (
	"strings"
	"testing"

	godap "github.com/google/go-dap"
)

// TestObsoleteFrame redefines the method a thread is stopped in: the stack
// still shows (the frame as obsolete), and restartFrame re-enters the new
// version of the method.
func TestObsoleteFrame(t *testing.T) {
	changed := compileVariant(t, "Loop.java", func(s string) string {
		return strings.Replace(s, "int sq = i * i; // @tick", "int sq = i * i * 0 + 7; // @tick", 1)
	})
	c := startSession(t, Config{})
	c.codec.RegisterEvent("hotCodeReplace", func() godap.Message { return &customEvent[HotCodeReplaceBody]{} })
	th, _ := stopAt(t, c, "Loop", "Loop.java", "tick")
	c.send("redefineClasses", map[string]any{"directory": changed})
	expect[*customEvent[HotCodeReplaceBody]](c)
	if r := expect[*redefineClassesResponse](c); !r.Body.Success {
		t.Fatalf("redefine: %s", mustJSON(r.Body))
	}
	frames := c.stackTrace(th)
	if len(frames) < 2 || !strings.Contains(frames[0].Name, "obsolete") || !strings.HasPrefix(frames[1].Name, "Loop.main") {
		t.Fatalf("frames after the redefine: %s", mustJSON(frames))
	}
	// The old frame shows where it is, from the old method's line table,
	// in its source; what needs no locals evaluates there.
	if f := frames[0]; !strings.HasPrefix(f.Name, "Loop.tick") || f.Line != line(t, "Loop.java", "tick") || f.Source == nil || f.Source.Path != source(t, "Loop.java") {
		t.Errorf("the obsolete frame: %s, want Loop.tick at line %d of Loop.java", mustJSON(f), line(t, "Loop.java", "tick"))
	}
	for _, e := range []string{"Loop.total >= 0", "total >= 0", "Math.max(1, 2) == 2"} {
		if r, er := c.evaluateIn(frames[0].Id, "repl", e); er != nil || r.Result != "true" {
			t.Errorf("%s in the obsolete frame: %s %s", e, mustJSON(r), mustJSON(er))
		}
	}
	c.setBreakpoints(source(t, "Loop.java"))
	c.send("restartFrame", map[string]any{"frameId": frames[0].Id})
	expect[*godap.RestartFrameResponse](c)
	c.expectStop("restart")
	top := c.stackTrace(th)[0]
	frameAt(t, top, "Loop.tick", line(t, "Loop.java", "tick"))
	c.send("next", map[string]any{"threadId": th})
	expect[*godap.NextResponse](c)
	c.expectStop("step")
	if r := c.evaluate(c.stackTrace(th)[0].Id, "sq"); r.Result != "7" {
		t.Errorf("sq in the new tick = %s, want 7", r.Result)
	}
	c.send("disconnect", nil)
	expect[*godap.DisconnectResponse](c)
}

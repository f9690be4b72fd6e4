package dap

import (
	"strings"
	"testing"

	godap "github.com/google/go-dap"
)

// stepTo sends a step request and checks where it stops.
func (c *client) stepTo(command string, th int, reason, name, file, marker string) {
	c.t.Helper()
	c.send(command, map[string]any{"threadId": th})
	if r := expect[godap.ResponseMessage](c).GetResponse(); !r.Success {
		c.t.Fatalf("%s: %+v", command, r)
	}
	c.expectStop(reason)
	frameAt(c.t, c.stackTrace(th)[0], name, line(c.t, file, marker))
}

// TestStepFilters steps past constructors, static initializers and
// synthetic methods when asked to, into a constructor when not, and hides
// the VM's own threads.
func TestStepFilters(t *testing.T) {
	t.Run("default", func(t *testing.T) {
		c := startSession(t, Config{})
		th, _ := stopAt(t, c, "Steps", "Steps.java", "new")
		c.stepTo("stepIn", th, "step", "Steps.<init>", "Steps.java", "ctor")
		c.send("threads", nil)
		if names := threadNames(expect[*godap.ThreadsResponse](c)); !strings.Contains(names, "Reference Handler") {
			t.Errorf("threads without hideSystemThreads: %s", names)
		}
		c.send("disconnect", nil)
		expect[*godap.DisconnectResponse](c)
	})
	t.Run("filters", func(t *testing.T) {
		c := startSession(t, Config{})
		th, _ := stopAt(t, c, "Steps", "Steps.java", "new", "hideSystemThreads", true, "stepFilters", map[string]any{
			"skipClasses": []string{"$JDK"}, "skipSynthetics": true, "skipStaticInitializers": true, "skipConstructors": true,
		})
		c.send("threads", nil)
		if names := threadNames(expect[*godap.ThreadsResponse](c)); strings.Contains(names, "Reference Handler") || !strings.Contains(names, "main (step)") && !strings.Contains(names, "main (breakpoint)") {
			t.Errorf("threads with hideSystemThreads: %s", names)
		}
		c.stepTo("stepIn", th, "step", "Steps.main", "Steps.java", "lazy")
		c.stepTo("stepIn", th, "step", "Steps.main", "Steps.java", "lambda")
		c.stepTo("stepIn", th, "step", "Steps.apply", "Steps.java", "apply")
		c.stepTo("stepIn", th, "step", "Steps.main", "Steps.java", "lambda")
		c.send("disconnect", nil)
		expect[*godap.DisconnectResponse](c)
	})
}

func threadNames(r *godap.ThreadsResponse) string {
	var names []string
	for _, th := range r.Body.Threads {
		names = append(names, th.Name)
	}
	return strings.Join(names, ", ")
}

// TestStepInTargetsAndRestart lists the calls of a line, steps into the
// second one, and restarts its frame.
func TestStepInTargetsAndRestart(t *testing.T) {
	c := startSession(t, Config{})
	th, top := stopAt(t, c, "Steps", "Steps.java", "targets")
	c.send("stepInTargets", map[string]any{"frameId": top.Id})
	targets := expect[*godap.StepInTargetsResponse](c).Body.Targets
	var labels []string
	for _, tg := range targets {
		labels = append(labels, tg.Label)
	}
	if strings.Join(labels, ", ") != "Steps.sum(int, int), Steps.twice(int), Math.abs(int)" {
		t.Fatalf("step-in targets %s", mustJSON(targets))
	}
	c.send("stepIn", map[string]any{"threadId": th, "targetId": targets[1].Id})
	expect[*godap.StepInResponse](c)
	c.expectStop("step")
	frames := c.stackTrace(th)
	frameAt(t, frames[0], "Steps.twice", line(t, "Steps.java", "twice"))
	if !frames[0].CanRestart {
		t.Errorf("twice's frame cannot restart: %+v", frames[0])
	}
	c.send("setVariable", map[string]any{"variablesReference": mustScope(c, frames[0].Id), "name": "x", "value": "100"})
	expect[*godap.SetVariableResponse](c)
	c.send("restartFrame", map[string]any{"frameId": frames[0].Id})
	expect[*godap.RestartFrameResponse](c)
	c.expectStop("restart")
	frames = c.stackTrace(th)
	frameAt(t, frames[0], "Steps.twice", line(t, "Steps.java", "twice"))
	// JVMTI PopFrame passes the arguments again as the popped frame left
	// them: the 100 set above survives the restart.
	if r := c.evaluate(frames[0].Id, "x"); r.Result != "100" {
		t.Errorf("x after restart = %s, want 100", r.Result)
	}
	c.send("continue", map[string]any{"threadId": th})
	expect[*godap.ContinueResponse](c)
	c.expectEnd(0)
	if !strings.Contains(c.out.String(), "steps 2 5 6 203") {
		t.Errorf("output %q", c.out.String())
	}
}

// mustScope returns the Locals reference of a frame.
func mustScope(c *client, frame int) int {
	c.t.Helper()
	c.send("scopes", map[string]any{"frameId": frame})
	return expect[*godap.ScopesResponse](c).Body.Scopes[0].VariablesReference
}

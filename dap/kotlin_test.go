package dap

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ddmbridge/ddmbridge/jdwp/lang/kotlin/kotlintest"
	godap "github.com/google/go-dap"
)

// ktSession launches the Kotlin fixture (compiled with lambdas as mode
// says) suspended, with its sources as the source path.
func ktSession(t *testing.T, mode kotlintest.Lambdas, extra ...any) (*client, *kotlintest.Compiled) {
	t.Helper()
	kc := kotlintest.CompileFixtureT(t, mode)
	c := startSession(t, Config{})
	c.initialize()
	args := map[string]any{"mainClass": kotlintest.FixtureMain, "classPaths": kc.ClassPath, "sourcePaths": []string{kc.Sources}}
	for i := 0; i+1 < len(extra); i += 2 {
		args[extra[i].(string)] = extra[i+1]
	}
	c.launch(args)
	return c, kc
}

// ktConfigurationDone sends configurationDone and reads its response. A
// class that loads once the program runs may verify a breakpoint (a
// breakpoint event), or stop, before the response arrives: such events are
// passed over and a stop is returned for ktStop.
func (c *client) ktConfigurationDone() *godap.StoppedEvent {
	c.t.Helper()
	c.send("configurationDone", nil)
	var stop *godap.StoppedEvent
	for {
		switch m := c.next().(type) {
		case *godap.ConfigurationDoneResponse:
			return stop
		case *godap.StoppedEvent:
			stop = m
		case *godap.BreakpointEvent:
		default:
			c.t.Fatalf("got %T %s, want configurationDone's response", m, mustJSON(m))
		}
	}
}

// ktContinue resumes and reads continue's response, passing over the
// breakpoint events of classes that load meanwhile.
func (c *client) ktContinue(th int) {
	c.t.Helper()
	c.send("continue", map[string]any{"threadId": th})
	for {
		switch m := c.next().(type) {
		case *godap.ContinueResponse:
			return
		case *godap.BreakpointEvent:
		default:
			c.t.Fatalf("got %T %s, want continue's response", m, mustJSON(m))
		}
	}
}

// ktStop returns seen, or the next stop (other messages dropped).
func (c *client) ktStop(seen *godap.StoppedEvent, what string) *godap.StoppedEvent {
	c.t.Helper()
	if seen != nil {
		return seen
	}
	return until[*godap.StoppedEvent](c, what, func(*godap.StoppedEvent) bool { return true })
}

func ktBP(t testing.TB, file, marker string) map[string]any {
	return map[string]any{"line": kotlintest.Line(t, file, marker)}
}

// ktFrameAt checks a frame's source is the fixture file (under the source
// path) and its line the marked one.
func ktFrameAt(t *testing.T, kc *kotlintest.Compiled, f godap.StackFrame, file, marker string) {
	t.Helper()
	want := kotlintest.Line(t, file, marker)
	if f.Source == nil || f.Source.Path != filepath.Join(kc.Sources, filepath.FromSlash(file)) || f.Line != want {
		t.Fatalf("frame %s at %s:%d, want %s:%d (@%s)", f.Name, mustJSON(f.Source), f.Line, file, want, marker)
	}
}

// Line breakpoints in .kt files verify (the loaded facade at once, a class
// not loaded yet when it loads) and stop, in both lambda modes; the frame
// names the .kt file and the Kotlin line; an inlined forEach body's locals
// read as Kotlin names them (no $-names, this@forEach).
func TestKotlinLineBreakpoints(t *testing.T) {
	for _, mode := range []kotlintest.Lambdas{kotlintest.Indy, kotlintest.Class} {
		t.Run(string(mode), func(t *testing.T) {
			c, kc := ktSession(t, mode)
			main := filepath.Join(kc.Sources, "app", "Main.kt")
			if bps := c.setBreakpoints(main, ktBP(t, "app/Main.kt", "forEachBody"), ktBP(t, "app/Main.kt", "lambda")); len(bps) != 2 || !bps[0].Verified || !bps[1].Verified {
				t.Fatalf("breakpoints in Main.kt (its facade app.MainKt loaded): %s", mustJSON(bps))
			}
			shapes := filepath.Join(kc.Sources, "app", "Shapes.kt")
			c.setBreakpoints(shapes, ktBP(t, "app/Shapes.kt", "corner"))
			th := c.ktStop(c.ktConfigurationDone(), "the stop in total").Body.ThreadId
			vars, frames := c.locals(th)
			ktFrameAt(t, kc, frames[0], "app/Main.kt", "forEachBody")
			if !strings.HasPrefix(frameName(frames[0]), "MainKt.total") {
				t.Errorf("top frame %q, want MainKt.total", frames[0].Name)
			}
			ktFrameAt(t, kc, frames[1], "app/Main.kt", "callTotal")
			for name := range vars {
				if strings.HasPrefix(name, "$") || strings.Contains(name, "$i$") {
					t.Errorf("a compiler-made local shown as %q: %s", name, mustJSON(vars))
				}
			}
			for _, want := range []string{"o", "sum", "this@forEach", "element"} {
				if _, ok := vars[want]; !ok {
					t.Errorf("no local %q in the inlined forEach body: %s", want, mustJSON(vars))
				}
			}

			c.ktContinue(th)
			c.expectStop("breakpoint") // the second order's total
			c.ktContinue(th)

			stop := until[*godap.StoppedEvent](c, "the stop in the lambda", func(*godap.StoppedEvent) bool { return true })
			frames = c.stackTrace(stop.Body.ThreadId)
			ktFrameAt(t, kc, frames[0], "app/Main.kt", "lambda")
			if !strings.HasPrefix(frameName(frames[0]), "MainKt.main") {
				t.Errorf("first stop on the lambda's line in %q, want main (where the lambda is made)", frames[0].Name)
			}
			c.ktContinue(th)
			// The lambda's body, on the same line: MainKt.main$lambda$1
			// (invokedynamic) or MainKt$main$square$1.invoke (a class).
			stop = until[*godap.StoppedEvent](c, "the stop in the lambda's body", func(*godap.StoppedEvent) bool { return true })
			frames = c.stackTrace(stop.Body.ThreadId)
			ktFrameAt(t, kc, frames[0], "app/Main.kt", "lambda")
			if n := frameName(frames[0]); n == frames[1].Name || !strings.Contains(n, "lambda") && !strings.Contains(n, "square") {
				t.Errorf("second stop on the lambda's line in %q, want the lambda's body", frames[0].Name)
			}
			c.ktContinue(th)

			stop = until[*godap.StoppedEvent](c, "the stop in Rect.Corner", func(*godap.StoppedEvent) bool { return true })
			frames = c.stackTrace(stop.Body.ThreadId)
			ktFrameAt(t, kc, frames[0], "app/Shapes.kt", "corner")
			c.send("disconnect", nil)
			until[*godap.DisconnectResponse](c, "disconnect's response", func(*godap.DisconnectResponse) bool { return true })
		})
	}
}

// stopAtKt launches the fixture and stops at a marked line.
func stopAtKt(t *testing.T, mode kotlintest.Lambdas, file, marker string, extra ...any) (*client, *kotlintest.Compiled, int) {
	t.Helper()
	c, kc := ktSession(t, mode, extra...)
	if bps := c.setBreakpoints(filepath.Join(kc.Sources, filepath.FromSlash(file)), ktBP(t, file, marker)); len(bps) != 1 || !bps[0].Verified {
		t.Fatalf("breakpoint at %s @%s: %s", file, marker, mustJSON(bps))
	}
	stop := c.ktStop(c.ktConfigurationDone(), "the stop at "+marker)
	if stop.Body.Reason != "breakpoint" {
		t.Fatalf("stopped %s, want a breakpoint", mustJSON(stop.Body))
	}
	th := stop.Body.ThreadId
	ktFrameAt(t, kc, c.stackTrace(th)[0], file, marker)
	return c, kc, th
}

func (c *client) ktStep(command string, th int) []godap.StackFrame {
	c.t.Helper()
	c.send(command, map[string]any{"threadId": th})
	if r := expect[godap.ResponseMessage](c).GetResponse(); !r.Success {
		c.t.Fatalf("%s: %+v", command, r)
	}
	c.expectStop("step")
	return c.stackTrace(th)
}

// Step into a call of the fixture's own inline function (twice, in
// Util.kt, inlined into main) enters its body: the frame reads Util.kt at
// the body's line (the JVM line past Main.kt's end mapped back through the
// Kotlin stratum), not a line Main.kt does not have.
func TestKotlinStepIntoInline(t *testing.T) {
	c, kc, th := stopAtKt(t, kotlintest.Indy, "app/Main.kt", "callTwice")
	frames := c.ktStep("stepIn", th)
	ktFrameAt(t, kc, frames[0], "app/Util.kt", "twiceFirst")
	// The inline function shows as a frame of its own above its caller,
	// which stands at the call site.
	if frames[0].Name != "twice (inlined)" {
		t.Errorf("top frame %q, want twice (inlined)", frames[0].Name)
	}
	ktFrameAt(t, kc, frames[1], "app/Main.kt", "callTwice")
	if !strings.HasPrefix(frameName(frames[1]), "MainKt.main") {
		t.Errorf("second frame %q, want MainKt.main", frames[1].Name)
	}
	c.send("disconnect", nil)
	until[*godap.DisconnectResponse](c, "disconnect's response", func(*godap.DisconnectResponse) bool { return true })
}

// Step over a line that calls inline functions (twice with its lambda)
// stays in the line's frame and lands on the next line, never in the
// inlined body's lines.
func TestKotlinStepOverInline(t *testing.T) {
	for _, mode := range []kotlintest.Lambdas{kotlintest.Indy, kotlintest.Class} {
		t.Run(string(mode), func(t *testing.T) {
			c, kc, th := stopAtKt(t, mode, "app/Main.kt", "callTwice")
			frames := c.ktStep("next", th)
			ktFrameAt(t, kc, frames[0], "app/Main.kt", "afterTwice")
			c.send("disconnect", nil)
			until[*godap.DisconnectResponse](c, "disconnect's response", func(*godap.DisconnectResponse) bool { return true })
		})
	}
}

// Function breakpoints on Kotlin functions (a top-level function of the
// facade, a member, a companion's member named as Kotlin calls it —
// Shop.open —, an object's member, a multifile facade's function —
// Multi.partA —, a @file:JvmName facade's — Utils.label —, a named
// companion's member as Kotlin calls it — Crate.make, Crate.Factory.make,
// never the nested object Crate.Sizes's make —) stop at the function's
// first line, in its file; a companion's frame reads as Kotlin names it
// (Shop.Companion.open, Crate.Factory.make).
func TestKotlinFunctionBreakpoints(t *testing.T) {
	c, kc := ktSession(t, kotlintest.Indy)
	c.send("setFunctionBreakpoints", map[string]any{"breakpoints": []map[string]any{
		{"name": "MainKt.total"}, {"name": "app.Shop.add"}, {"name": "Shop.open"}, {"name": "Registry.register"},
		{"name": "Multi.partA"}, {"name": "Utils.label"}, {"name": "Crate.make"},
	}})
	bps := expect[*godap.SetFunctionBreakpointsResponse](c).Body.Breakpoints
	if len(bps) != 7 || !bps[0].Verified {
		t.Fatalf("function breakpoints %s", mustJSON(bps))
	}
	first := c.ktConfigurationDone()
	seen := map[string]bool{}
	for len(seen) < 7 {
		stop := c.ktStop(first, "a function breakpoint's stop")
		first = nil
		if stop.Body.Reason != "function breakpoint" {
			t.Fatalf("stopped %s", mustJSON(stop.Body))
		}
		f := c.stackTrace(stop.Body.ThreadId)[0]
		switch {
		case strings.HasPrefix(frameName(f), "MainKt.total"):
			ktFrameAt(t, kc, f, "app/Main.kt", "totalFirst")
			seen["total"] = true
		case strings.HasPrefix(frameName(f), "Shop.add"):
			ktFrameAt(t, kc, f, "app/Main.kt", "addFirst")
			seen["add"] = true
		case strings.HasPrefix(frameName(f), "Shop.Companion.open"):
			// A companion's member, named as Kotlin calls it (Shop.open).
			ktFrameAt(t, kc, f, "app/Main.kt", "companion")
			seen["open"] = true
		case strings.HasPrefix(frameName(f), "Crate.Factory.make"):
			// A named companion's (companion object Factory), loaded after
			// the breakpoint was set.
			ktFrameAt(t, kc, f, "app/Shapes.kt", "factoryMake")
			ktFrameAt(t, kc, c.stackTrace(stop.Body.ThreadId)[1], "app/Shapes.kt", "callCrate")
			seen["make"] = true
		case strings.HasPrefix(frameName(f), "Registry.register"):
			ktFrameAt(t, kc, f, "app/Main.kt", "register")
			seen["register"] = true
		case strings.HasPrefix(frameName(f), "Multi__MultiAKt.partA"):
			// A @JvmMultifileClass file's function: in its part (MultiA.kt),
			// never in the facade app.Multi (no source), whose frame is
			// hidden.
			ktFrameAt(t, kc, f, "app/MultiA.kt", "partA")
			ktFrameAt(t, kc, c.stackTrace(stop.Body.ThreadId)[1], "app/Main.kt", "callParts")
			seen["partA"] = true
		case strings.HasPrefix(frameName(f), "Utils.label"):
			// A @file:JvmName facade's function (not label$default,
			// which calls it: its frame is hidden).
			ktFrameAt(t, kc, f, "app/Util.kt", "labelBody")
			seen["label"] = true
		default:
			t.Fatalf("stopped in %s", mustJSON(f))
		}
		c.ktContinue(stop.Body.ThreadId)
	}
	c.send("disconnect", nil)
	until[*godap.DisconnectResponse](c, "disconnect's response", func(*godap.DisconnectResponse) bool { return true })
}

// A function breakpoint on a suspend function stops once a call, at its
// body's first line with the call's argument, in both lambda modes:
// fetchOne (called three times by fetchAll, each suspending in delay) is
// entered again by its continuation's invokeSuspend each time it resumes,
// and those entries do not stop (they stopped on its header line with
// i = 0, the parameter before the state machine restores its locals).
func TestKotlinSuspendFunctionBreakpoint(t *testing.T) {
	for _, mode := range []kotlintest.Lambdas{kotlintest.Indy, kotlintest.Class} {
		t.Run(string(mode), func(t *testing.T) {
			c, kc := ktSession(t, mode)
			c.send("setFunctionBreakpoints", map[string]any{"breakpoints": []map[string]any{{"name": "MainKt.fetchOne"}}})
			if bps := expect[*godap.SetFunctionBreakpointsResponse](c).Body.Breakpoints; len(bps) != 1 || !bps[0].Verified {
				t.Fatalf("function breakpoint %s", mustJSON(bps))
			}
			first := c.ktConfigurationDone()
			for want := 1; want <= 3; want++ {
				stop := c.ktStop(first, "fetchOne's call")
				first = nil
				vars, frames := c.locals(stop.Body.ThreadId)
				ktFrameAt(t, kc, frames[0], "app/Main.kt", "delay")
				if vars["i"].Value != strconv.Itoa(want) {
					t.Fatalf("stop %d in fetchOne: locals %s, want i = %d", want, mustJSON(vars), want)
				}
				c.ktContinue(stop.Body.ThreadId)
			}
			for {
				switch m := c.next().(type) {
				case *godap.StoppedEvent:
					f := c.stackTrace(m.Body.ThreadId)[0]
					t.Fatalf("stopped again after fetchOne's three calls: %s at line %d", frameName(f), f.Line)
				case *godap.TerminatedEvent:
					return
				}
			}
		})
	}
}

// In a Kotlin frame, Kotlin's own syntax evaluates as Kotlin (a string
// template is never answered with its literal text), and what the engine
// does not evaluate yet is refused by name.
func TestKotlinEvaluateRefusesByName(t *testing.T) {
	c, _, th := stopAtKt(t, kotlintest.Indy, "app/Main.kt", "forEachBody")
	frame := c.stackTrace(th)[0].Id
	for expr, named := range map[string]string{
		`shop.orders.map { it.total }`: "Kotlin lambdas are not supported in evaluation yet", `Order::total`: "callable references",
		`sum = 3`: "assignment", `o.copy(id = 3)`: "named arguments",
	} {
		body, errResp := c.evaluateIn(frame, "watch", expr)
		if errResp == nil || !strings.Contains(errResp.Body.Error.Format, named) {
			t.Errorf("evaluate %s = %s / %s, want a refusal naming %q", expr, mustJSON(body), mustJSON(errResp), named)
		}
	}
	for expr, want := range map[string]string{
		`o.total + 1`: "31", `o.name`: `"tea"`, `sum == 0L`: "true", `o.id`: "1",
		`"${o.name}: $sum"`: `"tea: 0"`, `o?.name`: `"tea"`, `o.name ?: "x"`: `"tea"`, `o!!.id`: "1", `o.name == "tea"`: "true",
	} {
		body, errResp := c.evaluateIn(frame, "watch", expr)
		if errResp != nil || body.Result != want {
			t.Errorf("evaluate %s = %s / %s, want %s", expr, mustJSON(body), mustJSON(errResp), want)
		}
	}
	c.send("disconnect", nil)
	until[*godap.DisconnectResponse](c, "disconnect's response", func(*godap.DisconnectResponse) bool { return true })
}

// Step into a Kotlin function whose parameters kotlinc checks
// (Intrinsics.checkNotNullParameter before the first line) lands on the
// function's first line, not in Kotlin's intrinsics.
func TestKotlinStepIntoSkipsIntrinsics(t *testing.T) {
	c, kc, th := stopAtKt(t, kotlintest.Class, "app/Main.kt", "callDescribe")
	frames := c.ktStep("stepIn", th)
	ktFrameAt(t, kc, frames[0], "app/Main.kt", "describeText")
	c.send("disconnect", nil)
	until[*godap.DisconnectResponse](c, "disconnect's response", func(*godap.DisconnectResponse) bool { return true })
}

// A breakpoint on a line of an inline function's body (Util.kt's twice,
// never called: only inlined into main) binds where it was inlined (JVM
// lines past Main.kt's end, through MainKt's source map) and stops there,
// the frame reading Util.kt; a breakpoint on the call site stops once, on
// the call, not again in the inlined body or its lambda. A class that
// inlines them and loads later binds them as it loads: of the file's
// package (app.Shapes) and of another (lib.Late).
func TestKotlinInlineBreakpoints(t *testing.T) {
	for _, mode := range []kotlintest.Lambdas{kotlintest.Indy, kotlintest.Class} {
		t.Run(string(mode), func(t *testing.T) {
			c, kc := ktSession(t, mode)
			util := filepath.Join(kc.Sources, "app", "Util.kt")
			main := filepath.Join(kc.Sources, "app", "Main.kt")
			// app.MainKt, which inlines twice, is loaded at launch: the
			// breakpoint verifies at once.
			// app.Shapes, which inlines logged, loads later: that breakpoint
			// verifies then.
			bps := c.setBreakpoints(util, ktBP(t, "app/Util.kt", "twiceFirst"), ktBP(t, "app/Util.kt", "loggedBody"))
			verified := len(bps) == 2 && bps[0].Verified && bps[0].Line == kotlintest.Line(t, "app/Util.kt", "twiceFirst")
			if len(bps) != 2 || bps[1].Verified {
				t.Errorf("the breakpoint in logged's body verified before app.Shapes loaded: %s", mustJSON(bps))
			}
			loggedVerified := false
			c.setBreakpoints(main, ktBP(t, "app/Main.kt", "callTwice"), ktBP(t, "app/Main.kt", "afterTwice"))
			early := c.ktConfigurationDone()
			next := func() []godap.StackFrame {
				t.Helper()
				if early != nil {
					th := early.Body.ThreadId
					early = nil
					return c.stackTrace(th)
				}
				for {
					switch m := c.next().(type) {
					case *godap.BreakpointEvent:
						if m.Body.Breakpoint.Id == bps[1].Id && m.Body.Breakpoint.Verified &&
							m.Body.Breakpoint.Line == kotlintest.Line(t, "app/Util.kt", "loggedBody") {
							loggedVerified = true
						}
					case *godap.StoppedEvent:
						return c.stackTrace(m.Body.ThreadId)
					case *godap.ContinueResponse:
					default:
						t.Fatalf("got %s, want a stop", mustJSON(m))
					}
				}
			}
			frames := next()
			ktFrameAt(t, kc, frames[0], "app/Main.kt", "callTwice")
			th := c.refsThread(t)
			c.send("continue", map[string]any{"threadId": th})
			frames = next()
			ktFrameAt(t, kc, frames[0], "app/Util.kt", "twiceFirst")
			ktFrameAt(t, kc, frames[1], "app/Main.kt", "callTwice")
			if frames[0].Name != "twice (inlined)" || !strings.HasPrefix(frameName(frames[1]), "MainKt.main") {
				t.Errorf("the inlined body's frames are %q over %q, want twice (inlined) over MainKt.main", frames[0].Name, frames[1].Name)
			}
			if !verified {
				t.Errorf("the breakpoint in Util.kt was not verified (app.MainKt inlines it): %s", mustJSON(bps))
			}
			c.send("continue", map[string]any{"threadId": th})
			frames = next()
			ktFrameAt(t, kc, frames[0], "app/Main.kt", "afterTwice")
			c.send("continue", map[string]any{"threadId": th})
			frames = next()
			ktFrameAt(t, kc, frames[0], "app/Util.kt", "loggedBody")
			ktFrameAt(t, kc, frames[1], "app/Shapes.kt", "callLogged")
			if frames[0].Name != "logged (inlined)" || !strings.HasPrefix(frameName(frames[1]), "Shapes.describeAll") || !loggedVerified {
				t.Errorf("logged's body stopped in %q over %q (verified by an event when app.Shapes loaded: %v), want logged (inlined) over Shapes.describeAll", frames[0].Name, frames[1].Name, loggedVerified)
			}
			// lib.Late, of another package, inlines twice and logged and loads
			// last: both breakpoints bind there when it loads.
			c.send("continue", map[string]any{"threadId": th})
			frames = next()
			ktFrameAt(t, kc, frames[0], "app/Util.kt", "twiceFirst")
			ktFrameAt(t, kc, frames[1], "lib/Late.kt", "lateTwice")
			if frames[0].Name != "twice (inlined)" || !strings.HasPrefix(frameName(frames[1]), "Late.run") {
				t.Errorf("twice's body stopped in %q over %q, want twice (inlined) over Late.run", frames[0].Name, frames[1].Name)
			}
			c.send("continue", map[string]any{"threadId": th})
			frames = next()
			ktFrameAt(t, kc, frames[0], "app/Util.kt", "loggedBody")
			ktFrameAt(t, kc, frames[1], "lib/Late.kt", "lateLogged")
			c.send("disconnect", nil)
			until[*godap.DisconnectResponse](c, "disconnect's response", func(*godap.DisconnectResponse) bool { return true })
		})
	}
}

// refsThread is the thread of the latest stop (the fixture's main thread).
func (c *client) refsThread(t *testing.T) int {
	t.Helper()
	c.send("threads", nil)
	for _, th := range expect[*godap.ThreadsResponse](c).Body.Threads {
		if th.Name == "main" {
			return th.Id
		}
	}
	t.Fatal("no thread named main")
	return 0
}

// A function called without its default argument runs through kotlinc's
// label$default: that frame is hidden, the caller follows the function.
func TestKotlinHidesSyntheticFrames(t *testing.T) {
	c, kc := ktSession(t, kotlintest.Indy)
	c.setBreakpoints(filepath.Join(kc.Sources, "app", "Util.kt"), ktBP(t, "app/Util.kt", "labelBody"))
	stop := c.ktStop(c.ktConfigurationDone(), "the stop in label")
	frames := c.stackTrace(stop.Body.ThreadId)
	ktFrameAt(t, kc, frames[0], "app/Util.kt", "labelBody")
	ktFrameAt(t, kc, frames[1], "app/Main.kt", "callLabel")
	for _, f := range frames {
		if strings.Contains(f.Name, "$default") {
			t.Errorf("frame %q shown", f.Name)
		}
	}
	c.send("disconnect", nil)
	until[*godap.DisconnectResponse](c, "disconnect's response", func(*godap.DisconnectResponse) bool { return true })
}

// Stopped in an apply lambda, its receiver reads this@apply in both lambda
// modes: Kotlin 2 names it after the lambda ($this$describe_u24lambda_u241),
// and the lambda's marker ($i$a$-apply-…) beside it gives the label.
func TestKotlinApplyReceiverName(t *testing.T) {
	for _, mode := range []kotlintest.Lambdas{kotlintest.Indy, kotlintest.Class} {
		t.Run(string(mode), func(t *testing.T) {
			c, kc := ktSession(t, mode)
			main := filepath.Join(kc.Sources, "app", "Main.kt")
			if bps := c.setBreakpoints(main, ktBP(t, "app/Main.kt", "applyBody")); len(bps) != 1 || !bps[0].Verified {
				t.Fatalf("the breakpoint in describe's apply: %s", mustJSON(bps))
			}
			th := c.ktStop(c.ktConfigurationDone(), "the stop in apply").Body.ThreadId
			vars, frames := c.locals(th)
			ktFrameAt(t, kc, frames[0], "app/Main.kt", "applyBody")
			if _, ok := vars["this@apply"]; !ok {
				t.Errorf("no this@apply among describe's locals: %s", mustJSON(vars))
			}
			for name := range vars {
				if strings.Contains(name, "$") || strings.Contains(name, "_u24") {
					t.Errorf("a compiler-made name shown: %q in %s", name, mustJSON(vars))
				}
			}
			c.send("disconnect", nil)
			until[*godap.DisconnectResponse](c, "disconnect's response", func(*godap.DisconnectResponse) bool { return true })
		})
	}
}

// An inner class's outer instance (this$0) shows as this@Outer; a lazy
// property's delegate field (label$delegate) as label.
func TestKotlinFieldNames(t *testing.T) {
	c, kc := ktSession(t, kotlintest.Indy)
	// Shop$Till loads later: the breakpoint verifies then.
	c.setBreakpoints(filepath.Join(kc.Sources, "app", "Main.kt"), ktBP(t, "app/Main.kt", "till"))
	th := c.ktStop(c.ktConfigurationDone(), "the stop in Shop.Till").Body.ThreadId
	vars, frames := c.locals(th)
	ktFrameAt(t, kc, frames[0], "app/Main.kt", "till")
	this, ok := vars["this"]
	if !ok || this.VariablesReference == 0 {
		t.Fatalf("no expandable this: %s", mustJSON(vars))
	}
	fields := byName(c.variables(this.VariablesReference))
	outer, ok := fields["this@Shop"]
	if !ok || fields["number"].Value != "7" {
		t.Fatalf("Shop.Till's fields %s, want number = 7 and this@Shop", mustJSON(fields))
	}
	shop := byName(c.variables(outer.VariablesReference))
	if label, ok := shop["label"]; !ok || !strings.Contains(label.Value, "not initialized") {
		t.Errorf("Shop's fields %s, want label, its lazy not initialized yet (its delegate's toString says so)", mustJSON(shop))
	}
	for name := range shop {
		if strings.Contains(name, "$") {
			t.Errorf("Shop's field shown as %q", name)
		}
	}
	// Once main printed shop.label, the lazy shows its value (read from
	// its field: no code runs), and its expression is the property.
	c.setBreakpoints(filepath.Join(kc.Sources, "app", "Main.kt"), ktBP(t, "app/Main.kt", "callLabel"))
	c.ktContinue(th)
	stop := until[*godap.StoppedEvent](c, "the stop after shop.label", func(*godap.StoppedEvent) bool { return true })
	vars, frames = c.locals(stop.Body.ThreadId)
	ktFrameAt(t, kc, frames[0], "app/Main.kt", "callLabel")
	shop = byName(c.variables(vars["shop"].VariablesReference))
	if label := shop["label"]; label.Value != `"shop corner"` || label.EvaluateName != "shop.label" {
		t.Errorf("the initialized lazy label shown as %s, want \"shop corner\" (shop.label)", mustJSON(label))
	}
	c.send("disconnect", nil)
	until[*godap.DisconnectResponse](c, "disconnect's response", func(*godap.DisconnectResponse) bool { return true })
}

// breakpointLocations offers a .kt line with code in a loaded class (the
// facade's forEach body) and a line of an inline function's body (Util.kt's
// twice, inlined into the loaded facade).
func TestKotlinBreakpointLocations(t *testing.T) {
	c, kc := ktSession(t, kotlintest.Indy)
	for _, at := range []struct{ file, marker string }{{"app/Main.kt", "forEachBody"}, {"app/Main.kt", "callTwice"}, {"app/Util.kt", "twiceFirst"}} {
		l := kotlintest.Line(t, at.file, at.marker)
		c.send("breakpointLocations", map[string]any{"source": map[string]any{"path": filepath.Join(kc.Sources, filepath.FromSlash(at.file))}, "line": l})
		locs := expect[*godap.BreakpointLocationsResponse](c).Body.Breakpoints
		if len(locs) == 0 || locs[0].Line != l {
			t.Errorf("breakpointLocations %s:%d (@%s) = %s", at.file, l, at.marker, mustJSON(locs))
		}
	}
	c.send("disconnect", nil)
	until[*godap.DisconnectResponse](c, "disconnect's response", func(*godap.DisconnectResponse) bool { return true })
}

// An inline function (inner, Inner.kt) called from another inline
// function's body (outer, Outer.kt) inlined into main: stopped in inner's
// body, the stack reads inner (inlined) at its line, outer (inlined) at its
// call of inner, main at its call of outer — every level, as IntelliJ shows
// them (one level showed inner's body over main, named after outer).
func TestKotlinNestedInlineFrames(t *testing.T) {
	kotlintest.Require(t)
	files := map[string][]byte{
		"n/Outer.kt": []byte("package n\n\ninline fun outer(block: () -> Int): Int {\n    val a = 1\n    val r = inner { block() + a }\n    return r\n}\n"),
		"n/Inner.kt": []byte("package n\n\ninline fun inner(block: () -> Int): Int {\n    val b = 2\n    val x = block() * b\n    return x\n}\n"),
		"n/Main.kt":  []byte("package n\n\nfun main() {\n    val start = 3\n    val v = outer { start + 4 }\n    println(v)\n}\n"),
	}
	kc, err := kotlintest.Compile(t.Context(), files, kotlintest.Indy)
	if err != nil {
		t.Fatal(err)
	}
	c := startSession(t, Config{})
	c.initialize()
	c.launch(map[string]any{"mainClass": "n.MainKt", "classPaths": kc.ClassPath, "sourcePaths": []string{kc.Sources}})
	inner := filepath.Join(kc.Sources, "n", "Inner.kt")
	if bps := c.setBreakpoints(inner, map[string]any{"line": 5}); len(bps) != 1 || !bps[0].Verified {
		t.Fatalf("the breakpoint in inner's body (inlined into the loaded n.MainKt): %s", mustJSON(bps))
	}
	th := c.ktStop(c.ktConfigurationDone(), "the stop in inner's body").Body.ThreadId
	frames := c.stackTrace(th)
	want := []struct {
		name, file string
		line       int
	}{{"inner (inlined)", "Inner.kt", 5}, {"outer (inlined)", "Outer.kt", 5}, {"MainKt.main", "Main.kt", 5}}
	if len(frames) < len(want) {
		t.Fatalf("frames %s, want inner, outer, main", mustJSON(frames))
	}
	for i, w := range want {
		f := frames[i]
		if !strings.HasPrefix(f.Name, w.name) || f.Source == nil || f.Source.Path != filepath.Join(kc.Sources, "n", w.file) || f.Line != w.line {
			t.Errorf("frame %d is %q at %s:%d, want %s at n/%s:%d", i, f.Name, mustJSON(f.Source), f.Line, w.name, w.file, w.line)
		}
	}
	c.send("disconnect", nil)
	until[*godap.DisconnectResponse](c, "disconnect's response", func(*godap.DisconnectResponse) bool { return true })
}

// Breakpoints by column in Kotlin, as IntelliJ's lambda breakpoints: on a
// line with a lambda compiled to a method (pick: MainKt.main$lambda$N, or
// the class MainKt$main$pick$1's invoke) and two inlined into main (map's
// and filter's: main's code in the scope of their $i$a$ markers),
// breakpointLocations offers the line and each lambda's body; a column on a
// lambda stops in that lambda only, hit by its own line (the inlined ones
// once per element, with their `it`), in both lambda modes; a column
// before the first lambda stops in main's code of the line only; the line
// breakpoint stops where it did (main, then pick's body at each call). An
// inlined lambda whose body starts on the next line (forEach { o ->) is
// offered too, and stops at its body's first line; so do a suspend
// lambda's (runBlocking {), in its invokeSuspend only, and a lambda
// method's (val later = {).
func TestKotlinLambdaColumns(t *testing.T) {
	for _, mode := range []kotlintest.Lambdas{kotlintest.Indy, kotlintest.Class} {
		t.Run(string(mode), func(t *testing.T) {
			c, kc := ktSession(t, mode)
			main := filepath.Join(kc.Sources, "app", "Main.kt")
			line := kotlintest.Line(t, "app/Main.kt", "lambdaColumns")
			src, err := os.ReadFile(main)
			if err != nil {
				t.Fatal(err)
			}
			text := strings.Split(string(src), "\n")[line-1]
			indent := len(text) - len(strings.TrimLeft(text, " ")) + 1
			col := func(lambda string) int { return strings.Index(text, lambda) + 3 } // the body after "{ "
			pick, mapCol, filter := col("{ it > 40"), col("{ it.total"), col("{ pick(it)")
			c.send("breakpointLocations", map[string]any{"source": map[string]any{"path": main}, "line": line})
			locs := expect[*godap.BreakpointLocationsResponse](c).Body.Breakpoints
			want := []godap.BreakpointLocation{{Line: line, Column: indent}, {Line: line, Column: pick}, {Line: line, Column: mapCol}, {Line: line, Column: filter}}
			if mustJSON(locs) != mustJSON(want) {
				t.Errorf("breakpointLocations %s, want %s", mustJSON(locs), mustJSON(want))
			}
			bps := c.setBreakpoints(main, map[string]any{"line": line, "column": mapCol}, map[string]any{"line": line, "column": filter},
				map[string]any{"line": line, "column": pick}, map[string]any{"line": kotlintest.Line(t, "app/Main.kt", "callLabel")})
			if len(bps) != 4 || !bps[0].Verified || !bps[1].Verified {
				t.Fatalf("column breakpoints on the inlined lambdas (in the loaded app.MainKt): %s", mustJSON(bps))
			}
			names := map[int]string{bps[0].Id: "map", bps[1].Id: "filter", bps[2].Id: "pick", bps[3].Id: "end"}
			type hit struct{ bp, it string }
			var got []hit
			stop := c.ktConfigurationDone()
			for {
				stop = c.ktStop(stop, "a stop on the lambdas' line")
				th := stop.Body.ThreadId
				if len(stop.Body.HitBreakpointIds) != 1 {
					t.Fatalf("stopped %s, want one breakpoint", mustJSON(stop.Body))
				}
				name := names[stop.Body.HitBreakpointIds[0]]
				if name == "end" {
					break
				}
				vars, frames := c.locals(th)
				ktFrameAt(t, kc, frames[0], "app/Main.kt", "lambdaColumns")
				inMain := strings.HasPrefix(frameName(frames[0]), "MainKt.main") && !strings.Contains(frames[0].Name, "lambda")
				if inMain != (name != "pick") {
					t.Errorf("the %s lambda's stop in %q", name, frames[0].Name)
				}
				it := vars["it"].Value
				if strings.Contains(it, "tea") {
					it = "tea"
				} else if strings.Contains(it, "cake") {
					it = "cake"
				}
				got = append(got, hit{name, it})
				c.ktContinue(th)
				stop = nil
			}
			wantHits := []hit{{"map", "tea"}, {"map", "cake"}, {"filter", "30"}, {"pick", "30"}, {"filter", "45"}, {"pick", "45"}}
			if mustJSON(got) != mustJSON(wantHits) {
				t.Errorf("stops (breakpoint, it) %+v, want %+v", got, wantHits)
			}
			c.send("disconnect", nil)
			until[*godap.DisconnectResponse](c, "disconnect's response", func(*godap.DisconnectResponse) bool { return true })

			// A lambda whose body starts on the next line, inlined (total's
			// orders.forEach { o ->): offered at the line's end, its column
			// stops at the body's first line, once per order.
			c, kc = ktSession(t, mode)
			feLine := kotlintest.Line(t, "app/Main.kt", "forEachLine")
			feText := strings.Split(string(src), "\n")[feLine-1]
			feCol := strings.Index(feText, "->") + 3
			c.send("breakpointLocations", map[string]any{"source": map[string]any{"path": main}, "line": feLine})
			locs = expect[*godap.BreakpointLocationsResponse](c).Body.Breakpoints
			if len(locs) != 2 || locs[1] != (godap.BreakpointLocation{Line: feLine, Column: feCol}) {
				t.Errorf("breakpointLocations on forEach's line %s, want the line and column %d", mustJSON(locs), feCol)
			}
			c.setBreakpoints(main, map[string]any{"line": feLine, "column": feCol}, map[string]any{"line": kotlintest.Line(t, "app/Main.kt", "callDescribe")})
			var orders []string
			stop = c.ktConfigurationDone()
			for {
				stop = c.ktStop(stop, "a stop in forEach's lambda")
				vars, frames := c.locals(stop.Body.ThreadId)
				if frames[0].Line != kotlintest.Line(t, "app/Main.kt", "forEachBody") {
					ktFrameAt(t, kc, frames[0], "app/Main.kt", "callDescribe")
					break
				}
				orders = append(orders, map[bool]string{true: "tea", false: "cake"}[strings.Contains(vars["o"].Value, "tea")])
				c.ktContinue(stop.Body.ThreadId)
				stop = nil
			}
			if !slices.Equal(orders, []string{"tea", "cake"}) {
				t.Errorf("forEach's lambda stopped for %q, want tea, cake", orders)
			}
			c.send("disconnect", nil)
			until[*godap.DisconnectResponse](c, "disconnect's response", func(*godap.DisconnectResponse) bool { return true })

			// A lambda compiled to a method (a suspend lambda's class) whose
			// body starts on the next line (runBlocking {): its column stops
			// in the lambda's body only, at its first line.
			c, kc = ktSession(t, mode)
			rbBody := kotlintest.Line(t, "app/Main.kt", "runBlocking")
			rbText := strings.Split(string(src), "\n")[rbBody-2]
			if !strings.HasSuffix(strings.TrimSpace(rbText), "runBlocking {") {
				t.Fatalf("the line before @runBlocking is %q, want runBlocking's opening", rbText)
			}
			c.setBreakpoints(main, map[string]any{"line": rbBody - 1, "column": strings.Index(rbText, "{") + 2}, map[string]any{"line": kotlintest.Line(t, "app/Main.kt", "done")})
			var rb []string
			stop = c.ktConfigurationDone()
			for {
				stop = c.ktStop(stop, "a stop in runBlocking's lambda")
				frames := c.stackTrace(stop.Body.ThreadId)
				if frames[0].Line == kotlintest.Line(t, "app/Main.kt", "done") {
					break
				}
				rb = append(rb, fmt.Sprintf("%s:%d", frameName(frames[0]), frames[0].Line))
				c.ktContinue(stop.Body.ThreadId)
				stop = nil
			}
			if len(rb) != 1 || !strings.Contains(rb[0], "invokeSuspend") || !strings.HasSuffix(rb[0], fmt.Sprintf(":%d", rbBody)) {
				t.Errorf("runBlocking's lambda column stopped at %q, want once in its invokeSuspend at line %d", rb, rbBody)
			}
			c.send("disconnect", nil)
			until[*godap.DisconnectResponse](c, "disconnect's response", func(*godap.DisconnectResponse) bool { return true })

			// A lambda compiled to a method (not suspending) whose body starts
			// on the next line (val later = {): its column stops in the
			// lambda's body only, at its first line, not in main.
			c, kc = ktSession(t, mode)
			lLine := kotlintest.Line(t, "app/Main.kt", "laterLambda")
			lText := strings.Split(string(src), "\n")[lLine-1]
			c.setBreakpoints(main, map[string]any{"line": lLine, "column": strings.Index(lText, "{") + 2}, map[string]any{"line": kotlintest.Line(t, "app/Main.kt", "callLabel")})
			stop = c.ktStop(c.ktConfigurationDone(), "the stop in the later lambda")
			frames := c.stackTrace(stop.Body.ThreadId)
			ktFrameAt(t, kc, frames[0], "app/Main.kt", "laterBody")
			if n := frames[0].Name; !strings.Contains(n, "lambda") && !strings.Contains(n, "later") {
				t.Errorf("the later lambda's column stopped in %q, want the lambda", n)
			}
			c.ktContinue(stop.Body.ThreadId)
			stop = c.ktStop(nil, "the stop at label")
			ktFrameAt(t, kc, c.stackTrace(stop.Body.ThreadId)[0], "app/Main.kt", "callLabel")
			c.send("disconnect", nil)
			until[*godap.DisconnectResponse](c, "disconnect's response", func(*godap.DisconnectResponse) bool { return true })

			// The line's own code (a column before the first lambda), and the
			// line breakpoint: main's code, then pick's body at each call.
			for _, bp := range []map[string]any{{"line": line, "column": indent}, {"line": line}} {
				c, kc := ktSession(t, mode)
				c.setBreakpoints(main, bp, map[string]any{"line": kotlintest.Line(t, "app/Main.kt", "callLabel")})
				var in []string
				stop := c.ktConfigurationDone()
				for {
					stop = c.ktStop(stop, "a stop on the lambdas' line")
					frames := c.stackTrace(stop.Body.ThreadId)
					if frames[0].Line != line {
						break
					}
					ktFrameAt(t, kc, frames[0], "app/Main.kt", "lambdaColumns")
					in = append(in, map[bool]string{true: "lambda", false: "main"}[strings.Contains(frames[0].Name, "lambda") || strings.Contains(frames[0].Name, "pick")])
					c.ktContinue(stop.Body.ThreadId)
					stop = nil
				}
				want := []string{"main"}
				if _, column := bp["column"]; !column {
					want = []string{"main", "lambda", "lambda"}
				}
				if !slices.Equal(in, want) {
					t.Errorf("breakpoint %v stopped in %q, want %q", bp, in, want)
				}
				c.send("disconnect", nil)
				until[*godap.DisconnectResponse](c, "disconnect's response", func(*godap.DisconnectResponse) bool { return true })
			}
		})
	}
}

// A column on a lambda of an inline function's body line (picked's
// orders.map { it.total }.filter { it > 40 } in Util.kt) stops in that
// lambda only where the body was inlined into another class (app.MainKt):
// map's once per order, filter's once per total, in both lambda modes.
// Before, every location of the line there (the other lambda's too).
func TestKotlinLambdaColumnsInInlinedBody(t *testing.T) {
	for _, mode := range []kotlintest.Lambdas{kotlintest.Indy, kotlintest.Class} {
		t.Run(string(mode), func(t *testing.T) {
			c, kc := ktSession(t, mode)
			util := filepath.Join(kc.Sources, "app", "Util.kt")
			line := kotlintest.Line(t, "app/Util.kt", "pickedLine")
			src, err := os.ReadFile(util)
			if err != nil {
				t.Fatal(err)
			}
			text := strings.Split(string(src), "\n")[line-1]
			col := func(lambda string) int { return strings.Index(text, lambda) + 3 } // the body after "{ "
			mapCol, filter := col("{ it.total"), col("{ it > 40")
			bps := c.setBreakpoints(util, map[string]any{"line": line, "column": mapCol}, map[string]any{"line": line, "column": filter})
			end := c.setBreakpoints(filepath.Join(kc.Sources, "app", "Main.kt"), map[string]any{"line": kotlintest.Line(t, "app/Main.kt", "callLabel")})
			if len(bps) != 2 || !bps[0].Verified || !bps[1].Verified || len(end) != 1 {
				t.Fatalf("column breakpoints in picked's body (inlined into the loaded app.MainKt): %s", mustJSON(bps))
			}
			names := map[int]string{bps[0].Id: "map", bps[1].Id: "filter", end[0].Id: "end"}
			type hit struct{ bp, it string }
			var got []hit
			stop := c.ktConfigurationDone()
			for {
				stop = c.ktStop(stop, "a stop on picked's line")
				th := stop.Body.ThreadId
				if len(stop.Body.HitBreakpointIds) != 1 {
					t.Fatalf("stopped %s, want one breakpoint", mustJSON(stop.Body))
				}
				name := names[stop.Body.HitBreakpointIds[0]]
				if name == "end" {
					break
				}
				vars, frames := c.locals(th)
				ktFrameAt(t, kc, frames[0], "app/Util.kt", "pickedLine")
				it := vars["it"].Value
				if strings.Contains(it, "tea") {
					it = "tea"
				} else if strings.Contains(it, "cake") {
					it = "cake"
				}
				got = append(got, hit{name, it})
				c.ktContinue(th)
				stop = nil
			}
			want := []hit{{"map", "tea"}, {"map", "cake"}, {"filter", "30"}, {"filter", "45"}}
			if mustJSON(got) != mustJSON(want) {
				t.Errorf("stops (breakpoint, it) %+v, want %+v", got, want)
			}
			c.send("disconnect", nil)
			until[*godap.DisconnectResponse](c, "disconnect's response", func(*godap.DisconnectResponse) bool { return true })
		})
	}
}

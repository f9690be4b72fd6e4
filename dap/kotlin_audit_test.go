package dap

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	godap "github.com/google/go-dap"
	"github.com/rs/zerolog"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/kotlin/kotlintest"
)

// auditSession launches the fixture's app.AuditProbe (Audit.kt, a main of
// its own) with the connection's command trace in trace.
func auditSession(t *testing.T, mode kotlintest.Lambdas, trace *syncBuffer) (*client, *kotlintest.Compiled) {
	t.Helper()
	kc := kotlintest.CompileFixtureT(t, mode)
	cfg := Config{}
	if trace != nil {
		cfg.JDWP.Logger = zerolog.New(trace).Level(zerolog.TraceLevel)
		cfg.JDWP.Trace = jdwp.TraceCmd
	}
	c := startSession(t, cfg)
	c.initialize()
	c.launch(map[string]any{"mainClass": "app.AuditProbe", "classPaths": kc.ClassPath, "sourcePaths": []string{kc.Sources}})
	return c, kc
}

// Kotlin's emptyList(), emptySet(), emptyMap() and listOf() (the stdlib's
// singletons EmptyList, EmptySet, EmptyMap) and Collections.emptyList()'s
// are empty by definition: their size reads 0 with no method run in the VM
// (the program prints [] and {}); a local delegated property (cached by
// lazy) shows as cached with its value, as the program prints it.
func TestKotlinEmptyCollectionsWithoutCode(t *testing.T) {
	for _, mode := range []kotlintest.Lambdas{kotlintest.Indy, kotlintest.Class} {
		t.Run(string(mode), func(t *testing.T) {
			var trace syncBuffer
			c, kc := auditSession(t, mode, &trace)
			c.setBreakpoints(filepath.Join(kc.Sources, "app", "Audit.kt"), ktBP(t, "app/Audit.kt", "auditHere"))
			th := c.ktStop(c.ktConfigurationDone(), "the stop at @auditHere").Body.ThreadId
			for deadline := time.Now().Add(time.Minute); !strings.Contains(c.out.String(), "AUD\tulRange\t"); {
				if time.Now().After(deadline) {
					t.Fatalf("the program's output did not come: %s", c.out.String())
				}
				c.send("threads", nil) // reading its answer reads the output events before it
				expect[*godap.ThreadsResponse](c)
			}
			printed := map[string]string{}
			for _, l := range strings.Split(c.out.String(), "\n") {
				if f := strings.SplitN(l, "\t", 3); len(f) == 3 && f[0] == "AUD" {
					printed[f[1]] = f[2]
				}
			}
			invokes := func() int {
				s := trace.String()
				return strings.Count(s, "ObjectReference.InvokeMethod") + strings.Count(s, "ClassType.InvokeMethod") + strings.Count(s, "ClassType.NewInstance")
			}
			before := invokes()
			locals, frames := c.locals(th)
			ktFrameAt(t, kc, frames[0], "app/Audit.kt", "auditHere")
			for _, name := range []string{"noList", "noSet", "noMap", "listOfNone", "javaNoList", "javaNoMap"} {
				v, ok := locals[name]
				if want := printed[name]; want != "[]" && want != "{}" {
					t.Fatalf("the program printed %s as %q, want [] or {}", name, want)
				}
				if !ok || !strings.HasSuffix(v.Value, "(size=0)") {
					t.Errorf("%s shows %s, want an empty collection (size=0)", name, mustJSON(v))
					continue
				}
				if v.VariablesReference != 0 {
					for _, kid := range c.variables(v.VariablesReference) {
						if strings.HasPrefix(kid.Name, "[") {
							t.Errorf("%s lists an element %s", name, mustJSON(kid))
						}
					}
				}
			}
			// Unsigned ranges and progressions as Kotlin prints them.
			for _, name := range []string{"uRange", "uDown", "ulRange"} {
				if v := locals[name]; printed[name] == "" || v.Value != printed[name] {
					t.Errorf("%s shows %s, the program prints %q", name, mustJSON(v), printed[name])
				}
			}
			if v := locals["cached"]; v.Value != `"`+printed["cached"]+`"` || v.EvaluateName != "cached" {
				t.Errorf("the local delegated property cached shows %s, the program prints %q", mustJSON(v), printed["cached"])
			}
			if n := invokes() - before; n != 0 {
				t.Errorf("%d methods ran in the VM to show the values, want none", n)
			}
			// The property evaluates by its name: a hover reads the lazy's
			// value (no code), the console asks the lazy.
			for _, context := range []string{"hover", "watch"} {
				if body, errResp := c.evaluateIn(frames[0].Id, context, "cached"); errResp != nil || body.Result != locals["cached"].Value {
					t.Errorf("evaluate cached (%s) = %s / %s, want %s", context, mustJSON(body), mustJSON(errResp), locals["cached"].Value)
				}
			}
			c.send("disconnect", nil)
			until[*godap.DisconnectResponse](c, "disconnect's response", func(*godap.DisconnectResponse) bool { return true })
		})
	}
}

// Synthetic frames between two Kotlin functions are hidden: the bridge
// compare(Object, Object) kotlinc writes for a Comparator<Order> (the JDK's
// sort calls it, it calls compare(Order, Order)), and the accessor
// access$secret a companion calls its class's private function through.
func TestKotlinHidesBridgeAndAccessorFrames(t *testing.T) {
	c, kc := auditSession(t, kotlintest.Class, nil)
	file := filepath.Join(kc.Sources, "app", "Audit.kt")
	c.setBreakpoints(file, ktBP(t, "app/Audit.kt", "bridgeBody"), ktBP(t, "app/Audit.kt", "privateBody"))
	first := c.ktConfigurationDone()
	for _, want := range []struct{ marker, caller string }{{"bridgeBody", "TimSort."}, {"privateBody", "Vault.Companion.peek"}} {
		stop := c.ktStop(first, "the stop at @"+want.marker)
		first = nil
		frames := c.stackTrace(stop.Body.ThreadId)
		ktFrameAt(t, kc, frames[0], "app/Audit.kt", want.marker)
		if len(frames) < 2 || !strings.HasPrefix(frameName(frames[1]), want.caller) {
			t.Errorf("under @%s: %s, want %s next", want.marker, mustJSON(frames), want.caller)
		}
		if want.marker == "privateBody" {
			ktFrameAt(t, kc, frames[1], "app/Audit.kt", "peek")
		}
		for _, f := range frames {
			if strings.Contains(f.Name, "access$") || strings.Contains(f.Name, "(Object, Object)") {
				t.Errorf("synthetic frame %q shown", f.Name)
			}
		}
		c.ktContinue(stop.Body.ThreadId)
	}
	c.send("disconnect", nil)
	until[*godap.DisconnectResponse](c, "disconnect's response", func(*godap.DisconnectResponse) bool { return true })
}

// Stopped in a suspend function after it resumed (fetchOne after its
// delay), the frame's Locals read as the source's: i, no $completion,
// $continuation or $result (IntelliJ hides them too).
func TestKotlinSuspendFrameLocals(t *testing.T) {
	for _, mode := range []kotlintest.Lambdas{kotlintest.Indy, kotlintest.Class} {
		t.Run(string(mode), func(t *testing.T) {
			c, _, th := stopAtKt(t, mode, "app/Main.kt", "afterDelay")
			vars, _ := c.locals(th)
			if vars["i"].Value != "1" {
				t.Errorf("fetchOne's locals %s, want i = 1", mustJSON(vars))
			}
			for name := range vars {
				if strings.Contains(name, "$") {
					t.Errorf("a compiler-made name shown: %q in %s", name, mustJSON(vars))
				}
			}
			c.send("disconnect", nil)
			until[*godap.DisconnectResponse](c, "disconnect's response", func(*godap.DisconnectResponse) bool { return true })
		})
	}
}

// Step into a function of a @JvmMultifileClass file (partA of MultiA.kt,
// called through the facade app.Multi, which has no source and only calls
// the part app.Multi__MultiAKt) lands in MultiA.kt, and the facade's frame
// is hidden from the Call Stack; the step back out and into partB, and a
// step out of it, pass the facade too.
func TestKotlinStepIntoMultifileFunction(t *testing.T) {
	for _, mode := range []kotlintest.Lambdas{kotlintest.Indy, kotlintest.Class} {
		t.Run(string(mode), func(t *testing.T) {
			c, kc, th := stopAtKt(t, mode, "app/Main.kt", "callParts")
			frames := c.ktStep("stepIn", th)
			ktFrameAt(t, kc, frames[0], "app/MultiA.kt", "partA")
			if len(frames) < 2 {
				t.Fatalf("frames %s", mustJSON(frames))
			}
			ktFrameAt(t, kc, frames[1], "app/Main.kt", "callParts")
			frames = c.ktStep("stepIn", th)
			ktFrameAt(t, kc, frames[0], "app/Main.kt", "callParts")
			frames = c.ktStep("stepIn", th)
			ktFrameAt(t, kc, frames[0], "app/MultiB.kt", "partB")
			ktFrameAt(t, kc, frames[1], "app/Main.kt", "callParts")
			frames = c.ktStep("stepOut", th)
			ktFrameAt(t, kc, frames[0], "app/Main.kt", "callParts")
			c.send("disconnect", nil)
			until[*godap.DisconnectResponse](c, "disconnect's response", func(*godap.DisconnectResponse) bool { return true })
		})
	}
}

// The Debug Console's completions in a frame of an async stack (a
// continuation, no JVM frame) offer the variables the continuation keeps
// and their members, as in any frame.
func TestKotlinCompletionsInAsyncFrame(t *testing.T) {
	c, kc := ktSession(t, kotlintest.Indy, "args", []string{"--chain"})
	c.setBreakpoints(filepath.Join(kc.Sources, "app", "Coroutines.kt"), ktBP(t, "app/Coroutines.kt", "chainCAfter"))
	th := c.ktStop(c.ktConfigurationDone(), "the stop in chainC after delay").Body.ThreadId
	frames := c.stackTrace(th)
	async, ok := asyncFrames(frames)
	if !ok || len(async) < 2 {
		t.Fatalf("no async stack: %s", mustJSON(frames))
	}
	complete := func(frame int, text string) map[string]godap.CompletionItem {
		t.Helper()
		c.send("completions", map[string]any{"frameId": frame, "text": text, "column": len(text) + 1})
		m := map[string]godap.CompletionItem{}
		for _, it := range expect[*godap.CompletionsResponse](c).Body.Targets {
			m[it.Label] = it
		}
		return m
	}
	if got := complete(async[0].Id, "ha"); got["half"].Type != "variable" {
		t.Errorf("completions of ha in chainB's async frame: %s, want the variable half", mustJSON(got))
	}
	if got := complete(async[1].Id, "n + ta"); got["tag"].Type != "variable" || got["tag"].Start != 5 {
		t.Errorf("completions of ta in chainA's async frame: %s, want the variable tag at column 5", mustJSON(got))
	}
	if got := complete(async[1].Id, "tag.toUpper"); got["toUpperCase()"].Type != "method" {
		t.Errorf("completions of tag.toUpper in chainA's async frame: %s, want toUpperCase()", mustJSON(got))
	}
	c.send("disconnect", nil)
	until[*godap.DisconnectResponse](c, "disconnect's response", func(*godap.DisconnectResponse) bool { return true })
}

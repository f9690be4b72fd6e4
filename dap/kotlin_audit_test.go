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
			for deadline := time.Now().Add(time.Minute); !strings.Contains(c.out.String(), "AUD\tcached\t"); {
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
			if v := locals["cached"]; v.Value != `"`+printed["cached"]+`"` {
				t.Errorf("the local delegated property cached shows %s, the program prints %q", mustJSON(v), printed["cached"])
			}
			if n := invokes() - before; n != 0 {
				t.Errorf("%d methods ran in the VM to show the values, want none", n)
			}
			c.send("disconnect", nil)
			until[*godap.DisconnectResponse](c, "disconnect's response", func(*godap.DisconnectResponse) bool { return true })
		})
	}
}

package dap

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/kotlin/kotlintest"
	godap "github.com/google/go-dap"
	"github.com/rs/zerolog"
)

// TestKotlinValuesAsTheProgramPrintsThem (issue 37): Kotlin's Unit, Pair
// and Triple, ranges and progressions, a boxed Result (success and
// failure) and data classes (nested ones too) show in Variables as the
// Kotlin program itself prints them (the fixture's Values.kt prints each
// local, then stops), in both lambda modes, and no method runs in the VM
// to show them: the connection's trace of the commands it sent counts no
// InvokeMethod. A Pair's children are first and second.
func TestKotlinValuesAsTheProgramPrintsThem(t *testing.T) {
	for _, mode := range []kotlintest.Lambdas{kotlintest.Indy, kotlintest.Class} {
		t.Run(string(mode), func(t *testing.T) {
			kc := kotlintest.CompileFixtureT(t, mode)
			var trace syncBuffer
			cfg := Config{}
			cfg.JDWP.Logger = zerolog.New(&trace).Level(zerolog.TraceLevel)
			cfg.JDWP.Trace = jdwp.TraceCmd
			c := startSession(t, cfg)
			c.initialize()
			c.launch(map[string]any{"mainClass": kotlintest.FixtureMain, "classPaths": kc.ClassPath, "sourcePaths": []string{kc.Sources}, "args": []string{"--values"}})
			c.setBreakpoints(filepath.Join(kc.Sources, "app", "Values.kt"), ktBP(t, "app/Values.kt", "valuesHere"))
			c.configurationDone()
			th := until[*godap.StoppedEvent](c, "the stop at @valuesHere", func(*godap.StoppedEvent) bool { return true }).Body.ThreadId
			for deadline := time.Now().Add(time.Minute); !strings.Contains(c.out.String(), "VAL\ttuples\t"); {
				if time.Now().After(deadline) {
					t.Fatalf("the program's output did not come: %s", c.out.String())
				}
				c.send("threads", nil) // reading its answer reads the output events before it
				expect[*godap.ThreadsResponse](c)
			}
			var order []string
			printed := map[string]string{}
			for _, l := range strings.Split(c.out.String(), "\n") {
				if f := strings.SplitN(l, "\t", 3); len(f) == 3 && f[0] == "VAL" {
					order = append(order, f[1])
					printed[f[1]] = f[2]
				}
			}
			if len(order) != 20 {
				t.Fatalf("the program printed %d values, want 20: %s", len(order), c.out.String())
			}
			invokes := func() int {
				s := trace.String()
				return strings.Count(s, "ObjectReference.InvokeMethod") + strings.Count(s, "ClassType.InvokeMethod") + strings.Count(s, "ClassType.NewInstance")
			}
			before := invokes()
			locals, frames := c.locals(th)
			ktFrameAt(t, kc, frames[0], "app/Values.kt", "valuesHere")
			for _, name := range order {
				v, ok := locals[name]
				switch {
				case !ok:
					t.Errorf("no local %s", name)
				case v.Value != printed[name]:
					t.Errorf("%s shows %q, the program prints %q", name, v.Value, printed[name])
				}
			}
			if n := invokes() - before; n != 0 {
				t.Errorf("%d methods ran in the VM to show the values, want none", n)
			}
			kids := byName(c.variables(locals["pair"].VariablesReference))
			if kids["first"].Value != "1" || kids["second"].Value != `"one"` {
				t.Errorf("pair's children %v, want first 1 and second \"one\"", kids)
			}
			hover, errResp := c.evaluateIn(frames[0].Id, "hover", "segment")
			if errResp != nil || hover.Result != printed["segment"] {
				t.Errorf("hover segment = %s / %s, want %s", mustJSON(hover), mustJSON(errResp), printed["segment"])
			}
			t.Logf("%d Kotlin values compared with the program's output", len(order))
		})
	}
}

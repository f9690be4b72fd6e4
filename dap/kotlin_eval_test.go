package dap

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/kotlin/kotlintest"
	godap "github.com/google/go-dap"
)

var probeLine = regexp.MustCompile(`^\s*p\((\d+), (.*)\)$`)

// ktProbe runs the fixture's evaluation probe (app.MainKt --eval) and
// returns each expression of Eval.kt's p(index, expression) lines with the
// value the program printed for it.
func ktProbe(t *testing.T, kc *kotlintest.Compiled) (exprs, printed map[int]string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(kc.Sources, "app", "Eval.kt"))
	if err != nil {
		t.Fatal(err)
	}
	exprs = map[int]string{}
	for _, line := range strings.Split(string(src), "\n") {
		if m := probeLine.FindStringSubmatch(line); m != nil {
			i, _ := strconv.Atoi(m[1])
			exprs[i] = m[2]
		}
	}
	java, err := jvmtest.FindTool("java")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, java, "-cp", strings.Join(kc.ClassPath, string(os.PathListSeparator)), kotlintest.FixtureMain, "--eval")
	cmd.WaitDelay = 10 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("the probe: %v\n%s", err, out.String())
	}
	printed = map[int]string{}
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), "\t", 3)
		if len(f) == 3 && f[0] == "EVAL" {
			i, _ := strconv.Atoi(f[1])
			printed[i] = f[2]
		}
	}
	return exprs, printed
}

// shown is a DAP result as Kotlin's toString prints the value: a string's
// or char's quotes dropped.
func shown(result string) string {
	if len(result) >= 2 && (result[0] == '"' && result[len(result)-1] == '"' || result[0] == '\'' && result[len(result)-1] == '\'') {
		if s, err := strconv.Unquote(`"` + result[1:len(result)-1] + `"`); err == nil {
			return s
		}
		return result[1 : len(result)-1]
	}
	return result
}

// In a Kotlin frame, the Debug Console evaluates Kotlin: every expression
// of the fixture's probe (properties, ?., ?:, !!, templates, == and ===,
// is/as, in and ranges, indexing, extension, top-level and companion
// functions, when and if, Kotlin's literals) evaluates through DAP to what
// the Kotlin program itself printed for it.
func TestKotlinEvaluationMatchesTheProgram(t *testing.T) {
	for _, mode := range []kotlintest.Lambdas{kotlintest.Indy, kotlintest.Class} {
		t.Run(string(mode), func(t *testing.T) {
			kc := kotlintest.CompileFixtureT(t, mode)
			exprs, printed := ktProbe(t, kc)
			if len(exprs) < 60 || len(printed) != len(exprs) {
				t.Fatalf("the probe has %d expressions and printed %d values, want at least 60 of each", len(exprs), len(printed))
			}
			c, _ := ktSession(t, mode, "args", []string{"--eval"})
			c.setBreakpoints(filepath.Join(kc.Sources, "app", "Eval.kt"), ktBP(t, "app/Eval.kt", "evalHere")) // verified when app.EvalKt loads
			c.configurationDone()
			stop := until[*godap.StoppedEvent](c, "the stop at @evalHere", func(*godap.StoppedEvent) bool { return true })
			frames := c.stackTrace(stop.Body.ThreadId)
			ktFrameAt(t, kc, frames[0], "app/Eval.kt", "evalHere")
			frame := frames[0].Id
			for i := 0; i < len(exprs); i++ {
				body, errResp := c.evaluateIn(frame, "repl", exprs[i])
				switch {
				case errResp != nil:
					t.Errorf("%s: %s, want %s", exprs[i], errResp.Body.Error.Format, printed[i])
				case shown(body.Result) != printed[i]:
					t.Errorf("%s = %s, want %s (as the program prints it)", exprs[i], body.Result, printed[i])
				}
			}
			t.Logf("%d Kotlin expressions compared with the program's output", len(exprs))
			// A hover runs no code: a property reads its field.
			if body, errResp := c.evaluateIn(frame, "hover", "order.total"); errResp != nil || body.Result != "30" {
				t.Errorf("hover order.total = %s / %s, want 30", mustJSON(body), mustJSON(errResp))
			}
			c.send("disconnect", nil)
			until[*godap.DisconnectResponse](c, "disconnect's response", func(*godap.DisconnectResponse) bool { return true })
		})
	}
}

// A Kotlin frame's conditions and log messages are Kotlin: a condition with
// ?., == and a range stops only on the order it names, and a log message's
// {…} parts with a template and ?: print as Kotlin would.
func TestKotlinConditionsAndLogMessages(t *testing.T) {
	c, kc := ktSession(t, kotlintest.Indy)
	main := filepath.Join(kc.Sources, "app", "Main.kt")
	bps := c.setBreakpoints(main,
		map[string]any{"line": kotlintest.Line(t, "app/Main.kt", "callTotal"), "logMessage": `till {"${shop.title}!"} has {shop.orders.size} orders, first {shop.orders.firstOrNull()?.name ?: "none"}`},
		map[string]any{"line": kotlintest.Line(t, "app/Main.kt", "forEachBody"), "condition": `o?.name == "cake" && sum in 1L..100L`})
	if len(bps) != 2 || !bps[0].Verified || !bps[1].Verified {
		t.Fatalf("breakpoints: %s", mustJSON(bps))
	}
	c.configurationDone()
	var logs []string
	c.skip["output"] = false
	for {
		m := c.next()
		if o, ok := m.(*godap.OutputEvent); ok {
			if o.Body.Category == "console" {
				logs = append(logs, strings.TrimSpace(o.Body.Output))
			}
			continue
		}
		if s, ok := m.(*godap.StoppedEvent); ok {
			vars, _ := c.locals(s.Body.ThreadId)
			if vars["sum"].Value != "30" {
				t.Errorf("stopped with sum = %s, want 30 (the second order)", vars["sum"].Value)
			}
			break
		}
	}
	if want := "till corner! has 2 orders, first tea"; len(logs) != 1 || logs[0] != want {
		t.Errorf("the log message printed %q, want %q", logs, want)
	}
	c.send("disconnect", nil)
	until[*godap.DisconnectResponse](c, "disconnect's response", func(*godap.DisconnectResponse) bool { return true })
}

package dap

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	godap "github.com/google/go-dap"
)

// showLine is a show("name", expression); line of Blocks.java.
var showLine = regexp.MustCompile(`^\s*show\("(\w+)", (.*)\);$`)

// TestBlockLambdas evaluates block-bodied lambdas, nested lambdas and
// method references, and assignments in lambdas (to their locals and
// parameters, to fields, statics and array elements) in the VM (issue 27
// #7), and compares each result with what the same Java text prints when
// javac compiled it: Blocks.java prints every show line's value before it
// stops at @blocks with the same locals, where the same texts are
// evaluated, in the same order, as "" + (expression).
func TestBlockLambdas(t *testing.T) {
	src, err := os.ReadFile(source(t, "Blocks.java"))
	if err != nil {
		t.Fatal(err)
	}
	type show struct{ name, expr string }
	var shows []show
	for _, l := range strings.Split(string(src), "\n") {
		if m := showLine.FindStringSubmatch(l); m != nil {
			shows = append(shows, show{m[1], m[2]})
		}
	}
	if len(shows) < 15 {
		t.Fatalf("found %d show lines in Blocks.java", len(shows))
	}
	c := startSession(t, Config{})
	th, top := stopAt(t, c, "Blocks", "Blocks.java", "blocks")
	got := map[string]string{}
	for _, s := range shows {
		body, errResp := c.evaluateIn(top.Id, "repl", `"" + (`+s.expr+`)`)
		if errResp != nil {
			t.Errorf("%s: evaluate %s: %s", s.name, s.expr, errResp.Body.Error.Format)
			continue
		}
		v, err := strconv.Unquote(body.Result)
		if err != nil {
			t.Errorf("%s: result %s is not a string", s.name, body.Result)
			continue
		}
		got[s.name] = v
	}

	// What javac refuses, or what throws, says so.
	for expr, want := range map[string]string{
		"xs.stream().map(s -> { if (s.length() > 5) throw new IllegalStateException(\"long \" + s); return s; }).collect(Collectors.toList())": "java.lang.IllegalStateException thrown: long banana",
		"xs.stream().map(s -> { limit++; return s; }).count()":                                                                                 "local variables referenced from a lambda expression must be final or effectively final: limit",
		"xs.stream().map(s -> { int s = 1; return s; }).count()":                                                                               "variable s is already defined here",
		"xs.stream().map(s -> { try { return s; } finally { } }).count()":                                                                      "finally is not supported inside a lambda here",
		"xs.stream().map(s -> s.length()).map(n -> { return n; }).reduce(0, (a, b) -> { int r = a + b; })":                                     "missing return statement",
	} {
		_, errResp := c.evaluateIn(top.Id, "repl", expr)
		switch {
		case want == "" && errResp != nil:
			t.Errorf("evaluate %s: %s", expr, errResp.Body.Error.Format)
		case want != "" && (errResp == nil || !strings.Contains(errResp.Body.Error.Format, want)):
			t.Errorf("evaluate %s: %s, want an error with %q", expr, mustJSON(errResp), want)
		}
	}

	c.send("continue", map[string]any{"threadId": th})
	until[*godap.ContinueResponse](c, "continue response", nil)
	c.expectEnd(0)
	printed := map[string]string{}
	for _, l := range strings.Split(c.out.String(), "\n") {
		if name, v, ok := strings.Cut(l, "="); ok {
			printed[name] = v
		}
	}
	for _, s := range shows {
		want, ok := printed[s.name]
		switch {
		case !ok:
			t.Errorf("%s: the program printed no value", s.name)
		case got[s.name] != want:
			t.Errorf("%s: %s\n  Debug Console: %q\n  java:          %q", s.name, s.expr, got[s.name], want)
		}
	}
}

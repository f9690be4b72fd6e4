package dap

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ddmbridge/ddmbridge/internal/lockedbuf"
	godap "github.com/google/go-dap"
	"github.com/rs/zerolog"
)

// TestEvaluateLambdas evaluates lambdas and method references in a HotSpot
// frame: the classes are generated and defined through the program's class
// loader (no JDK involved), called by the program's own library code.
func TestEvaluateLambdas(t *testing.T) {
	logs := &lockedbuf.Buffer{}
	c := startSession(t, Config{Logger: zerolog.New(logs).Level(zerolog.DebugLevel)})
	th, top := stopAt(t, c, "Lambdas", "Lambdas.java", "lambdas")
	for _, tc := range []struct{ expr, want string }{
		{"orders.stream().filter(o -> o.total() > 100).count()", "2"},
		{"orders.stream().filter(o -> o.total() > limit && !o.customer().startsWith(\"B\")).count()", "1"},
		{"xs.stream().map(String::length).collect(java.util.stream.Collectors.toList()).toString()", `"[1, 2, 3]"`},
		{"xs.stream().mapToInt(s -> s.length() * bonus).sum()", "42"},
		{"xs.stream().map(s -> scaled(s.length())).reduce(0, Integer::sum)", "42"},
		{"orders.stream().map(Order::customer).sorted().findFirst().get()", `"Ada"`},
		{"apply(o -> o.total() * 2, orders.get(1))", "160.0"},
		{"orders.stream().mapToDouble(Order::total).max().getAsDouble()", "250.0"},
		{"xs.stream().map(StringBuilder::new).map(b -> b.reverse().toString()).toList().get(2)", `"ccc"`},
		{"orders.stream().sorted(java.util.Comparator.comparing(Order::total)).map(o -> o.customer()).toList().toString()", `"[Ada, Bo, Chen]"`},
		{"orders.stream().sorted((a, b) -> Double.compare(b.total(), a.total())).findFirst().get().customer()", `"Chen"`},
		{"orders.stream().filter(o -> o.total() > 100).count()", "2"}, // again: the class is found in the loader, not defined twice
	} {
		body, errResp := c.evaluateIn(top.Id, "repl", tc.expr)
		if errResp != nil {
			t.Errorf("evaluate %s: %s", tc.expr, errResp.Body.Error.Format)
			continue
		}
		if body.Result != tc.want {
			t.Errorf("evaluate %s = %s, want %s", tc.expr, body.Result, tc.want)
		}
	}

	// Each class was defined once: the runtime and the repeated lambda too.
	defined := map[string]int{}
	for _, l := range strings.Split(logs.String(), "\n") {
		var e struct{ Message, Class string }
		if json.Unmarshal([]byte(l), &e) == nil && e.Message == "defined a class for an expression" {
			defined[e.Class]++
		}
	}
	if defined["ddmbridge/rt/Rt"] != 1 || len(defined) < 9 {
		t.Errorf("classes defined: %v", defined)
	}
	for class, n := range defined {
		if n != 1 {
			t.Errorf("%s defined %d times", class, n)
		}
	}

	// forEach with method references: the program sees their effects.
	if _, e := c.evaluateIn(top.Id, "repl", "xs.forEach(sink::add)"); e != nil {
		t.Fatalf("xs.forEach(sink::add): %s", e.Body.Error.Format)
	}
	if b, _ := c.evaluateIn(top.Id, "watch", "sink.size()"); b.Result != "3" {
		t.Errorf("sink.size() after forEach(sink::add) = %s", b.Result)
	}
	if _, e := c.evaluateIn(top.Id, "repl", "xs.forEach(System.out::println)"); e != nil {
		t.Fatalf("xs.forEach(System.out::println): %s", e.Body.Error.Format)
	}

	// What is not supported, or wrong, says so.
	for expr, want := range map[string]string{
		"xs.forEach(x -> { System.out.println(x); })": "", // a block body (TestBlockLambdas)
		"o -> o.total()": "a lambda needs an interface to implement",
		"xs.stream().map(s -> Integer.parseInt(s)).count()":  "", // lazy: nothing runs the lambda
		"xs.stream().map(s -> Integer.parseInt(s)).toList()": "java.lang.NumberFormatException",
		"xs.forEach((a, b) -> a)":                            "forEach(lambda) matches the arguments; there is Iterable.forEach(Consumer)",
		"orders.stream().filter(o -> o.nope()).count()":      "nope",
	} {
		_, errResp := c.evaluateIn(top.Id, "repl", expr)
		switch {
		case want == "" && errResp != nil:
			t.Errorf("evaluate %s: %s", expr, errResp.Body.Error.Format)
		case want != "" && (errResp == nil || !strings.Contains(errResp.Body.Error.Format, want)):
			t.Errorf("evaluate %s: error %s, want %q", expr, mustJSON(errResp), want)
		}
	}
	// Hovers run no code, lambdas included.
	if _, e := c.evaluateIn(top.Id, "hover", "orders.stream().filter(o -> o.total() > 100).count()"); e == nil || !strings.Contains(e.Body.Error.Format, "evaluateHoverMethods") {
		t.Errorf("hover with a lambda: %s", mustJSON(e))
	}

	// A condition with a lambda, and lambdas in a static frame: captured
	// locals, unqualified calls of the class's static methods.
	c.setBreakpoints(source(t, "Lambdas.java"), bp(t, "Lambdas.java", "static", "condition", "java.util.List.of(1, n).stream().anyMatch(x -> x == n)"))
	c.send("continue", map[string]any{"threadId": th})
	until[*godap.ContinueResponse](c, "continue response", nil)
	th = c.expectStop("breakpoint").Body.ThreadId
	static := c.stackTrace(th)[0]
	frameAt(t, static, static.Name, line(t, "Lambdas.java", "static"))
	for _, tc := range []struct{ expr, want string }{
		{"java.util.List.of(1, 2, 3).stream().filter(x -> x > n).count()", "1"},
		{"java.util.List.of(1, 2).stream().map(x -> helper(x) * n).toList().toString()", `"[4, 6]"`},
		{"java.util.stream.IntStream.rangeClosed(1, 4).map(Lambdas::helper).sum()", "14"},
	} {
		if body, e := c.evaluateIn(static.Id, "repl", tc.expr); e != nil || body.Result != tc.want {
			t.Errorf("evaluate %s in main = %+v %s, want %s", tc.expr, body, mustJSON(e), tc.want)
		}
	}

	c.send("continue", map[string]any{"threadId": th})
	until[*godap.ContinueResponse](c, "continue response", nil)
	c.expectEnd(0)
	if out := c.out.String(); !strings.Contains(out, "a\nbb\nccc\n") || !strings.Contains(out, "after [a, bb, ccc]") {
		t.Errorf("program output %q lacks the lines forEach(System.out::println) printed, or sink's contents", out)
	}
}

package dap

import (
	"strings"
	"testing"

	godap "github.com/google/go-dap"
)

// TestEvaluateImports: the Debug Console reads names as the frame's source
// file does (issue 27 #6), on a program of three packages stopped in
// com.acme.app.Main, whose file imports com.acme.model.Box and Shape
// (single-type), com.acme.model.* and com.acme.util.* (on demand), and
// static: com.acme.util.Fmt.money and java.lang.Math.*.
func TestEvaluateImports(t *testing.T) {
	c := startSession(t, Config{})
	_, top := stopAt(t, c, "com.acme.app.Main", "com/acme/app/Main.java", "imports")
	// Hovers run no methods: a class not loaded yet is not loaded for them.
	if _, errResp := c.evaluateIn(top.Id, "hover", "Helper.class"); errResp == nil {
		t.Errorf("hover Helper.class found a class only loading could find")
	}
	for _, tc := range []struct{ expr, want string }{
		// java.util.stream.ReduceOps$Box is loaded too; the import decides,
		// and beats com.acme.util.Box of the on-demand import.
		{"Box.class.getName()", `"com.acme.model.Box"`},
		{"new Box(5).size() + box.size()", "8"},
		{"Box.of(2).size()", "2"},
		// Member types, of an imported type and of the frame's class.
		{"shape instanceof Shape.Circle", "true"},
		{"((Shape.Circle) shape).r()", "2.0"},
		{"new Shape.Square(3).area()", "9.0"},
		{"Shape.Circle.class.getSimpleName()", `"Circle"`},
		{"Local.ONE", "1"},
		{"new Node().kind()", `"node"`}, // inherited from Base
		// Not loaded yet: loaded through the frame's class loader; a static
		// field initialized by the class's initializer reads as Java reads it.
		{"Fmt.CURRENCY", `"EUR"`},
		{"Fmt.money(12.5)", `"12.50 EUR"`},
		// The file's package, not loaded yet either.
		{"Helper.twice(4)", "8"},
		// Single-type import of the JDK, and java.lang.
		{"List.of(1, 2).size()", "2"},
		{"String.valueOf(sum)", `"10"`},
		// Static imports, single and on demand, in lambdas too.
		{"money(2)", `"2.00 EUR"`},
		{"max(3, 7) + (PI > 3 ? 1 : 0)", "8"},
		{"List.of(1.0, 2.5).stream().map(v -> money(abs(v))).toList().toString()", `"[1.00 EUR, 2.50 EUR]"`},
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
	// Completions offer the types the file imports by name.
	c.send("completions", map[string]any{"frameId": top.Id, "text": "Sh", "column": 3})
	var shape *godap.CompletionItem
	for _, it := range expect[*godap.CompletionsResponse](c).Body.Targets {
		if it.Label == "Shape" {
			shape = &it
		}
	}
	if shape == nil || shape.Type != "class" || shape.Detail != "com.acme.model.Shape" {
		t.Errorf("completions of Sh: Shape %s", mustJSON(shape))
	}
	// What javac refuses is refused, saying why.
	for expr, want := range map[string]string{
		"Tag.NAME": "reference to Tag is ambiguous: both com.acme.model.Tag and com.acme.util.Tag",
		"Nope.x":   "Nope",
	} {
		_, errResp := c.evaluateIn(top.Id, "repl", expr)
		if errResp == nil || !strings.Contains(errResp.Body.Error.Format, want) {
			t.Errorf("evaluate %s: %s, want an error with %q", expr, mustJSON(errResp), want)
		}
	}
}

package dap

import (
	"sort"
	"strings"
	"testing"

	godap "github.com/google/go-dap"
)

// TestLogicalViews stops in a real HotSpot program holding a List, a Map, a
// Set, an EnumMap, a collection class of its own and the small value types,
// and reads them the way a Java developer does: elements and entries (paged),
// a raw view, enum constants, records, toString — and hovers that run no
// methods.
func TestLogicalViews(t *testing.T) {
	c := startSession(t, Config{})
	c.initialize()
	c.launch(launchArgs(t, "Logical"))
	c.setBreakpoints(source(t, "Logical.java"), bp(t, "Logical.java", "show"))
	c.configurationDone()
	th := c.expectStop("breakpoint").Body.ThreadId
	locals, frames := c.locals(th)

	for name, want := range map[string]string{
		"list": "ArrayList (size=3)", "immutable": "ImmutableCollections$List12 (size=2)",
		"map": "HashMap (size=2)", "set": "TreeSet (size=2)", "enumMap": "EnumMap (size=2)",
		"big": "ArrayList (size=1000)", "bag": "Logical$Bag (size=2)",
		"opt": `Optional["here"]`, "none": "Optional.empty", "counter": "41", "flag": "true",
		"sb": `"built"`, "wide": `"π≈3"`, "status": "Status.NEW", "op": "Op.PLUS",
		"point": "Point[x=1, y=2]", "customer": "Customer(Chen)", "cls": "class java.lang.String",
		"thread": `Thread "main"`, "error": "IllegalStateException: boom", "entry": `"k" -> 7`,
	} {
		if v := locals[name]; v.Value != want {
			t.Errorf("%s = %q, want %q", name, v.Value, want)
		}
	}
	if v := locals["plain"]; !strings.HasPrefix(v.Value, "Logical$Plain (id=") {
		t.Errorf("plain = %q, want Logical$Plain (id=…): no toString override", v.Value)
	}

	// A list: its elements, then the raw view; named children are the raw view alone.
	list := locals["list"]
	if list.IndexedVariables != 3 || list.NamedVariables != 1 {
		t.Errorf("list indexed %d named %d, want 3 and 1", list.IndexedVariables, list.NamedVariables)
	}
	if got := values(c.variables(list.VariablesReference)); got != `[0]="a" [1]="b" [2]="c" <raw>=ArrayList fields` {
		t.Errorf("list children %s", got)
	}
	named := c.variables(list.VariablesReference, "filter", "named")
	if len(named) != 1 || named[0].Name != rawName {
		t.Fatalf("named children of list %s", mustJSON(named))
	}
	raw := byName(c.variables(named[0].VariablesReference))
	if raw["size"].Value != "3" || !strings.HasPrefix(raw["elementData"].Value, "Object[") {
		t.Errorf("raw view of list %s", mustJSON(raw))
	}
	for _, name := range []string{"immutable", "set", "bag"} {
		got := values(c.variables(locals[name].VariablesReference, "filter", "indexed"))
		want := map[string]string{"immutable": "[0]=1 [1]=2", "set": `[0]="x" [1]="y"`, "bag": `[0]="p" [1]="q"`}[name]
		if got != want {
			t.Errorf("%s elements %s, want %s", name, got, want)
		}
	}

	// Paging through 1000 elements.
	page := c.variables(locals["big"].VariablesReference, "filter", "indexed", "start", 500, "count", 10)
	if len(page) != 10 || page[0].Name != "[500]" || page[0].Value != "1000" || page[9].Name != "[509]" || page[9].Value != "1018" {
		t.Errorf("big [500, 510) %s", values(page))
	}

	// Maps: entries key -> value, each expanding to key and value.
	var entries []string
	mapEntries := c.variables(locals["map"].VariablesReference, "filter", "indexed")
	for _, e := range mapEntries {
		entries = append(entries, e.Value)
	}
	sort.Strings(entries)
	if strings.Join(entries, ", ") != `"one" -> 1, "two" -> 2` {
		t.Errorf("map entries %s", mustJSON(mapEntries))
	}
	kv := byName(c.variables(mapEntries[0].VariablesReference))
	if kv["key"].Value != `"one"` && kv["key"].Value != `"two"` || kv["value"].Value != "1" && kv["value"].Value != "2" {
		t.Errorf("entry children %s", mustJSON(kv))
	}
	if got := values(c.variables(locals["enumMap"].VariablesReference, "filter", "indexed")); got != `[0]=Status.NEW -> "fresh" [1]=Status.DONE -> "finished"` {
		t.Errorf("enumMap entries %s", got)
	}

	// Hovers run no methods: no toString, no size() — fields only (List.of's
	// size too, from its fields).
	for expr, want := range map[string]string{"customer": "Logical$Customer (id=", "list": "ArrayList (size=3)", "immutable": "ImmutableCollections$List12 (size=2)", "status": "Status.NEW"} {
		c.send("evaluate", map[string]any{"expression": expr, "frameId": frames[0].Id, "context": "hover"})
		r := expect[*godap.EvaluateResponse](c).Body
		if !strings.HasPrefix(r.Result, want) {
			t.Errorf("hover %s = %q, want %s…", expr, r.Result, want)
		}
	}
	// The REPL shares the presentation.
	if r := c.evaluate(frames[0].Id, "customer"); r.Result != "Customer(Chen)" {
		t.Errorf("evaluate customer = %q", r.Result)
	}

	c.send("continue", map[string]any{"threadId": th})
	expect[*godap.ContinueResponse](c)
	c.expectEnd(0)
}

// values writes variables as name=value, space separated.
func values(vs []godap.Variable) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = v.Name + "=" + v.Value
	}
	return strings.Join(parts, " ")
}

// TestExceptionInVariables shows the exception a thread stopped on among
// the top frame's locals, with its message, and frame names with their
// parameter types.
func TestExceptionInVariables(t *testing.T) {
	c := startSession(t, Config{})
	c.initialize()
	c.launch(launchArgs(t, "Exceptions"))
	c.send("setExceptionBreakpoints", map[string]any{"filters": []string{}, "filterOptions": []map[string]any{
		{"filterId": "caught", "condition": "java.lang.IllegalStateException"},
	}})
	expect[*godap.SetExceptionBreakpointsResponse](c)
	c.configurationDone()
	th := c.expectStop("exception").Body.ThreadId
	frames := c.stackTrace(th)
	if frames[0].Name != "Exceptions.thrower(int)" || frames[len(frames)-1].Name != "Exceptions.main(String[])" {
		t.Errorf("frame names %q … %q, want parameter types", frames[0].Name, frames[len(frames)-1].Name)
	}
	c.send("scopes", map[string]any{"frameId": frames[0].Id})
	scopes := expect[*godap.ScopesResponse](c).Body.Scopes
	vars := c.variables(scopes[0].VariablesReference)
	if len(vars) == 0 || vars[0].Name != exceptionName || vars[0].Value != "IllegalStateException: state 0" || vars[0].EvaluateName != "exception" || vars[0].VariablesReference == 0 {
		t.Errorf("locals of the throwing frame %s", mustJSON(vars))
	}
	c.send("scopes", map[string]any{"frameId": frames[1].Id})
	scopes = expect[*godap.ScopesResponse](c).Body.Scopes
	if caller := byName(c.variables(scopes[0].VariablesReference)); len(caller) == 0 || caller[exceptionName].Name != "" {
		t.Errorf("the caller's locals show the exception too: %s", mustJSON(caller))
	}
	c.send("disconnect", map[string]any{"terminateDebuggee": true})
	expect[*godap.DisconnectResponse](c)
}

// TestExpressionsLikeJava evaluates what users type next in a real VM:
// overloads with covariant returns, new objects and arrays (generic type
// arguments ignored), class literals, instanceof patterns, assignment and
// compound assignment; lambdas and method references are named as
// unsupported.
func TestExpressionsLikeJava(t *testing.T) {
	c := startSession(t, Config{})
	c.initialize()
	c.launch(launchArgs(t, "Logical"))
	c.setBreakpoints(source(t, "Logical.java"), bp(t, "Logical.java", "show"))
	c.configurationDone()
	th := c.expectStop("breakpoint").Body.ThreadId
	top := c.stackTrace(th)[0].Id
	for _, tc := range [][2]string{
		{`new StringBuilder("ab").reverse()`, `"ba"`},
		{`new StringBuilder("ab").reverse().length()`, "2"},
		{`new int[]{1, 2, 3}[2]`, "3"},
		{`new int[4].length`, "4"},
		{`new String[]{"a", "b"}[1]`, `"b"`},
		{`new long[][]{{1}, {2, 3}}[1][1]`, "3"},
		{`new ArrayList<>(list)`, "ArrayList (size=3)"},
		{`new java.util.HashMap<String, List<Integer>>().size()`, "0"},
		{`String.class`, "class java.lang.String"},
		{`int.class`, "int"},
		{`Logical.class.getSimpleName()`, `"Logical"`},
		{`error instanceof IllegalStateException ise ? ise.getMessage() : "no"`, `"boom"`},
		{`customer instanceof Logical.Customer cu && cu.name.length() == 4`, "true"},
		{`counter.get() > 40 ? "big" : "small"`, `"big"`},
		{`total = 5`, "5"},
		{`total += 2`, "7"},
		{`total++`, "7"},
		{`total`, "8"},
		{`--total`, "7"},
		{`plain.id *= 2`, "796"},
		{`sb.append("!")`, `"built!"`},
		{`list.stream().filter(s -> s.equals("a")).count()`, "1"},
		{`list.stream().map(s -> { return s; }).count()`, "3"},
	} {
		if r := c.evaluate(top, tc[0]); r.Result != tc[1] {
			t.Errorf("evaluate %s = %q, want %q", tc[0], r.Result, tc[1])
		}
	}
	for expr, want := range map[string]string{
		`new int[2][3]`: "several sizes",
	} {
		c.send("evaluate", map[string]any{"expression": expr, "frameId": top, "context": "repl"})
		c.expectError(ErrUnableToEvaluate, want)
	}
	// Hovers assign nothing.
	c.send("evaluate", map[string]any{"expression": "total = 1", "frameId": top, "context": "hover"})
	c.expectError(ErrUnableToEvaluate, "assignment is not supported here")
	if r := c.evaluate(top, "total"); r.Result != "7" {
		t.Errorf("after a refused hover assignment total = %s", r.Result)
	}
	c.send("disconnect", map[string]any{"terminateDebuggee": true})
	expect[*godap.DisconnectResponse](c)
}

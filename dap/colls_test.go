package dap

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
	godap "github.com/google/go-dap"
	"github.com/rs/zerolog"
)

// TestCollectionsFromFields (issue 35: read what needs no code without
// invoking anything): the JDK's common collections and maps, their elements
// listed in Variables as the program itself iterates them (its output, line
// by line), on JDK 17 and on the JDK 21+ of the tests; no method runs in the
// VM for them: the connection's own trace of the commands it sent counts no
// InvokeMethod.
func TestCollectionsFromFields(t *testing.T) {
	t.Run("JDK17", func(t *testing.T) { testCollectionsFromFields(t, "") })
	t.Run("JDK21+", func(t *testing.T) { testCollectionsFromFields(t, jvmtest.ModernJDK(t)) })
}

func testCollectionsFromFields(t *testing.T, home string) {
	var trace syncBuffer
	cfg := Config{}
	cfg.JDWP.Logger = zerolog.New(&trace).Level(zerolog.TraceLevel)
	cfg.JDWP.Trace = jdwp.TraceCmd
	c := startSession(t, cfg)
	c.initialize()
	args := launchArgs(t, "Colls")
	if home != "" {
		args["javaHome"] = home
	}
	c.launch(args)
	c.setBreakpoints(source(t, "Colls.java"), bp(t, "Colls.java", "colls"))
	c.configurationDone()
	th := c.expectStop("breakpoint").Body.ThreadId
	for deadline := time.Now().Add(time.Minute); !strings.Contains(c.out.String(), "vector\tlime"); {
		if time.Now().After(deadline) {
			t.Fatalf("the program's output did not come: %s", c.out.String())
		}
		c.send("threads", nil) // reading its answer reads the output events before it
		expect[*godap.ThreadsResponse](c)
	}
	want := map[string][]string{}
	var order []string
	for _, l := range strings.Split(c.out.String(), "\n") {
		name, elem, ok := strings.Cut(l, "\t")
		if !ok {
			continue
		}
		if _, seen := want[name]; !seen {
			order = append(order, name)
		}
		want[name] = append(want[name], elem)
	}
	if len(order) != 31 {
		t.Fatalf("the program printed %d collections, want 31: %s", len(order), c.out.String())
	}
	invokes := func() int {
		return strings.Count(trace.String(), "ObjectReference.InvokeMethod") + strings.Count(trace.String(), "ClassType.InvokeMethod") + strings.Count(trace.String(), "ClassType.NewInstance")
	}
	t.Logf("%d collections, %d elements; %s", len(order), strings.Count(c.out.String(), "\t"), home)
	before := invokes()
	locals, _ := c.locals(th)
	for _, name := range order {
		v, ok := locals[name]
		if !ok {
			t.Errorf("no local %s", name)
			continue
		}
		if v.IndexedVariables != len(want[name]) {
			t.Errorf("%s = %q: %d indexed variables, want %d", name, v.Value, v.IndexedVariables, len(want[name]))
		}
		var got []string
		for start := 0; start < len(want[name]); start += 5 { // pages, as VS Code asks
			for _, e := range c.variables(v.VariablesReference, "filter", "indexed", "start", start, "count", 5) {
				got = append(got, plain(e.Value))
			}
		}
		if strings.Join(got, ", ") != strings.Join(want[name], ", ") {
			t.Errorf("%s (%s): elements\n%v\nthe program iterates\n%v", name, v.Value, got, want[name])
		}
		if len(want[name]) > 3 { // a page before the last one read (linked ones walk again from the start)
			var again []string
			for _, e := range c.variables(v.VariablesReference, "filter", "indexed", "start", 1, "count", 2) {
				again = append(again, plain(e.Value))
			}
			if strings.Join(again, ", ") != strings.Join(want[name][1:3], ", ") {
				t.Errorf("%s: elements 1-2 asked again %v, want %v", name, again, want[name][1:3])
			}
		}
	}
	if n := invokes() - before; n != 0 {
		t.Errorf("%d methods ran in the VM to list the collections, want none", n)
	}
}

// plain turns an element as Variables shows it into what the program
// prints: strings unquoted, an entry "k -> v" as k=v.
func plain(s string) string {
	if k, v, ok := strings.Cut(s, " -> "); ok {
		return plain(k) + "=" + plain(v)
	}
	if u, err := strconv.Unquote(s); err == nil {
		return u
	}
	return s
}

// BenchmarkBigCollectionLocals: a stop's Locals with a 1,000,000-element
// ArrayList and a HashMap of as many entries, then the first page of each
// (100 elements, as VS Code asks) and a page from the middle of the list:
// elements read from the fields, against gathered by toArray() in the VM
// (before issue 35). Figures are printed, not asserted; -benchtime 1x.
func BenchmarkBigCollectionLocals(b *testing.B) {
	c := startSession(b, Config{})
	c.initialize()
	c.launch(launchArgs(b, "BigColls", "vmArgs", []string{"-Xmx2g"}))
	c.setBreakpoints(source(b, "BigColls.java"), bp(b, "BigColls.java", "big"))
	c.configurationDone()
	th := until[*godap.StoppedEvent](c, "breakpoint stop", nil).Body.ThreadId
	c.setBreakpoints(source(b, "BigColls.java"))
	type figures struct{ locals, listFirst, listMiddle, mapFirst time.Duration }
	run := func(toArray bool) figures {
		elementsByToArray = toArray
		defer func() { elementsByToArray = false }()
		c.timedStep(th) // a new stop: nothing gathered yet
		var f figures
		t0 := time.Now()
		locals, _ := c.locals(th)
		f.locals = time.Since(t0)
		page := func(name string, start int) time.Duration {
			t0 := time.Now()
			if vs := c.variables(locals[name].VariablesReference, "filter", "indexed", "start", start, "count", 100); len(vs) != 100 {
				b.Fatalf("%s from %d: %d elements, want 100: %v", name, start, len(vs), vs)
			}
			return time.Since(t0)
		}
		f.listFirst = page("list", 0)
		f.listMiddle = page("list", 500_000)
		f.mapFirst = page("map", 0)
		return f
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run(false) // warm both
		old, fields := run(true), run(false)
		b.Logf("toArray in the VM: Locals %v, list's first 100 %v, 100 from its middle %v, map's first 100 %v", old.locals, old.listFirst, old.listMiddle, old.mapFirst)
		b.Logf("from the fields:   Locals %v, list's first 100 %v, 100 from its middle %v, map's first 100 %v", fields.locals, fields.listFirst, fields.listMiddle, fields.mapFirst)
	}
}

package dap

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"

	godap "github.com/google/go-dap"
)

// noSrc is a class whose source no sourcePath holds: its source is the
// outline.
const noSrc = `public final class NoSrc implements java.io.Serializable {
    private final byte[] value = new byte[3];
    static final long BORN = System.nanoTime();
    public int length() { return value.length + Integer.valueOf(7).hashCode(); }
    public static String valueOf(int i) { return Integer.toString(i); }
}
`

// TestSources lists loaded sources — the program's by path, the JDK's by
// reference into the JDK's src.zip even though sourcePaths are set — and
// answers a reference to a class without source with an outline and
// disassembly.
func TestSources(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	extra, err := jvmtest.CompileFiles(ctx, map[string][]byte{"NoSrc.java": []byte(noSrc)})
	if err != nil {
		t.Fatal(err)
	}
	c := startSession(t, Config{})
	th, top := stopAt(t, c, "Basic", "Basic.java", "call-add", "classPaths", []string{fixtures(t), extra})
	if r, e := c.evaluateIn(top.Id, "repl", `Class.forName("NoSrc").getName()`); e != nil || r.Result != `"NoSrc"` {
		t.Fatalf("load NoSrc: %s %s", mustJSON(r), mustJSON(e))
	}
	c.send("loadedSources", nil)
	srcs := expect[*godap.LoadedSourcesResponse](c).Body.Sources
	var basic, str, nosrc *godap.Source
	for i, s := range srcs {
		switch {
		case s.Path == source(t, "Basic.java"):
			basic = &srcs[i]
		case s.Name == "String.java":
			str = &srcs[i]
		case s.Name == "NoSrc.java":
			nosrc = &srcs[i]
		}
	}
	if basic == nil || str == nil || nosrc == nil || str.SourceReference == 0 || str.Path != "" || nosrc.SourceReference == 0 || len(srcs) < 100 {
		t.Fatalf("loaded sources (%d): Basic %+v String %+v NoSrc %+v", len(srcs), basic, str, nosrc)
	}
	c.send("source", map[string]any{"sourceReference": str.SourceReference, "source": str})
	if text := expect[*godap.SourceResponse](c).Body.Content; str.Origin != "src.zip" || !strings.Contains(text, "package java.lang;") || !strings.Contains(text, " * The {@code String} class represents character strings.") {
		t.Errorf("String.java %s is not the JDK's source: %.300s", mustJSON(str), text)
	}
	c.send("source", map[string]any{"sourceReference": nosrc.SourceReference, "source": nosrc})
	text := expect[*godap.SourceResponse](c).Body.Content
	for _, want := range []string{
		"public final class NoSrc implements java.io.Serializable", "private final byte[] value;",
		"public int length() // ()I", "public static java.lang.String valueOf(int) // (I)Ljava/lang/String;",
		"getfield        NoSrc.value:[B", "invokevirtual", "// line ", "static {}",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("NoSrc's outline lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("outline:\n%.3000s", text)
	}
	// A JDK frame's source is the same reference.
	c.send("evaluate", map[string]any{"expression": "0", "frameId": c.stackTrace(th)[0].Id})
	expect[*godap.EvaluateResponse](c)
	c.send("source", map[string]any{"sourceReference": 999999})
	c.expectError(ErrUnableToSource, "unknown sourceReference")
	c.send("disconnect", map[string]any{"terminateDebuggee": true})
	expect[*godap.DisconnectResponse](c)
}

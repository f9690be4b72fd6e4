package dap

import (
	"strings"
	"testing"

	godap "github.com/google/go-dap"
)

// TestSources lists loaded sources — the program's by path, the JDK's by
// reference — and answers a reference with an outline and disassembly.
func TestSources(t *testing.T) {
	c := startSession(t, Config{})
	th, _ := stopAt(t, c, "Basic", "Basic.java", "call-add")
	c.send("loadedSources", nil)
	srcs := expect[*godap.LoadedSourcesResponse](c).Body.Sources
	var basic, str *godap.Source
	for i, s := range srcs {
		switch {
		case s.Path == source(t, "Basic.java"):
			basic = &srcs[i]
		case s.Name == "String.java":
			str = &srcs[i]
		}
	}
	if basic == nil || str == nil || str.SourceReference == 0 || str.Path != "" || len(srcs) < 100 {
		t.Fatalf("loaded sources (%d): Basic %+v String %+v", len(srcs), basic, str)
	}
	c.send("source", map[string]any{"sourceReference": str.SourceReference, "source": str})
	text := expect[*godap.SourceResponse](c).Body.Content
	for _, want := range []string{
		"package java.lang;", "public final class String implements java.io.Serializable", "private final byte[] value;",
		"public int length() // ()I", "public static java.lang.String valueOf(int) // (I)Ljava/lang/String;",
		"getfield        java/lang/String.value:[B", "invokevirtual", "// line ", "static {}",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("String's outline lacks %q", want)
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

package dap

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
	godap "github.com/google/go-dap"
)

const orderSrc = `/*
 * A licence header that mentions package nothing; on purpose.
 */
package com.shop;

import java.util.List;

public class Order {
    final int total;
    Order(int total) { this.total = total; }

    static int describe(Order o) {
        return o.total * 2; // @describe
    }

    public static void main(String[] args) throws Exception {
        System.out.println("READY");
        while (true) {
            Hidden.run(List.of(new Order(1), new Order(2)));
            Thread.sleep(10);
        }
    }
}
`

const hiddenSrc = `package com.shop;

import java.util.List;

class Hidden {
    static void run(List<Order> orders) {
        int sum = 0;
        orders.forEach(o -> Order.describe(o)); // @forEach
    }
}
`

// TestZeroConfigSources attaches without sourcePaths: the program's frame
// opens its file in the workspace (found by package declaration, though the
// folders do not follow the package), a JDK frame opens the JDK's src.zip,
// and a class with no source anywhere shows the bytecode outline with the
// frame's instruction highlighted.
func TestZeroConfigSources(t *testing.T) {
	jvmtest.RequireJava(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	classes, err := jvmtest.CompileFiles(ctx, map[string][]byte{"com/shop/Order.java": []byte(orderSrc), "com/shop/Hidden.java": []byte(hiddenSrc)})
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	orderPath := filepath.Join(ws, "misc", "stuff", "Order.java")
	os.MkdirAll(filepath.Dir(orderPath), 0o755)
	if err := os.WriteFile(orderPath, []byte(orderSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	vm := jvmtest.StartT(t, jvmtest.Options{ClassPath: []string{classes}, MainClass: "com.shop.Order", ReadyLine: "READY"})

	c := startSession(t, Config{})
	c.initialize()
	c.attach(map[string]any{"port": vm.Port, "workspaceFolders": []string{ws}})
	describe := markedLine(t, orderSrc, "describe")
	bps := c.setBreakpointsRunning(orderPath, map[string]any{"line": describe})
	if !bps[0].Verified {
		t.Fatalf("breakpoint %+v", bps[0])
	}
	th := c.configurationDoneAndStop("breakpoint", nil).Body.ThreadId
	frames := c.stackTrace(th)
	top := frames[0]
	if top.Name != "Order.describe(Order)" || top.Line != describe || top.Source == nil || top.Source.Path != orderPath {
		t.Fatalf("top frame %s, want Order.describe(Order) at %s:%d", mustJSON(top), orderPath, describe)
	}

	var jdk, hidden *godap.StackFrame
	for i, f := range frames {
		switch {
		case strings.HasPrefix(f.Name, "ArrayList.forEach") || strings.HasPrefix(f.Name, "ImmutableCollections") && strings.Contains(f.Name, "forEach") || strings.HasPrefix(f.Name, "Iterable.forEach"):
			jdk = &frames[i]
		case strings.HasPrefix(f.Name, "Hidden.run"):
			hidden = &frames[i]
		}
	}
	if jdk == nil || hidden == nil {
		t.Fatalf("no JDK forEach or Hidden.run frame in %s", mustJSON(frames))
	}
	// The JDK frame: its real source from lib/src.zip.
	if jdk.Source == nil || jdk.Source.SourceReference == 0 || jdk.Source.Origin != "src.zip" {
		t.Fatalf("JDK frame source %s, want a reference into src.zip", mustJSON(jdk.Source))
	}
	c.send("source", map[string]any{"sourceReference": jdk.Source.SourceReference, "source": jdk.Source})
	text := expect[*godap.SourceResponse](c).Body.Content
	lines := strings.Split(text, "\n")
	if !strings.Contains(text, "package java.") || jdk.Line < 1 || jdk.Line > len(lines) || !strings.Contains(lines[jdk.Line-1], "action.accept(") {
		t.Errorf("JDK source of %s: line %d is %q", jdk.Name, jdk.Line, lineAt(lines, jdk.Line))
	}

	// No source anywhere: the outline, at the instruction the frame runs.
	if hidden.Source == nil || hidden.Source.SourceReference == 0 || hidden.Source.Path != "" {
		t.Fatalf("Hidden.run source %s, want an outline reference", mustJSON(hidden.Source))
	}
	c.send("source", map[string]any{"sourceReference": hidden.Source.SourceReference, "source": hidden.Source})
	outline := strings.Split(expect[*godap.SourceResponse](c).Body.Content, "\n")
	at := lineAt(outline, hidden.Line)
	if !regexp.MustCompile(`^\s+\d+: invoke`).MatchString(at) {
		t.Errorf("outline line %d is %q, want the invoke instruction the frame runs", hidden.Line, at)
	}
	srcLine := 0
	for i := hidden.Line - 1; i >= 0 && srcLine == 0; i-- {
		if m := regexp.MustCompile(`// line (\d+)`).FindStringSubmatch(outline[i]); m != nil {
			srcLine, _ = strconv.Atoi(m[1])
		}
	}
	if want := markedLine(t, hiddenSrc, "forEach"); srcLine != want {
		t.Errorf("the highlighted instruction belongs to source line %d, want %d", srcLine, want)
	}

	c.send("disconnect", nil)
	expect[*godap.DisconnectResponse](c)
}

func lineAt(lines []string, n int) string {
	if n < 1 || n > len(lines) {
		return ""
	}
	return lines[n-1]
}

// markedLine is the line of src marked "// @marker".
func markedLine(t *testing.T, src, marker string) int {
	for i, l := range strings.Split(src, "\n") {
		if strings.HasSuffix(strings.TrimSpace(l), "// @"+marker) {
			return i + 1
		}
	}
	t.Fatalf("no line marked @%s", marker)
	return 0
}

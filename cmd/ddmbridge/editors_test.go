package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
	godap "github.com/google/go-dap"
)

// editorClients are the initialize arguments editors send (from their
// sources: nvim-dap's lua/dap/session.lua, dap-mode's
// dap--initialize-message), and what their configurations add to the
// launch arguments (both send type, request and name along).
var editorClients = []struct {
	name string
	init map[string]any
	typ  string
}{
	{"nvim-dap", map[string]any{"clientID": "neovim", "clientName": "neovim", "adapterID": "nvim-dap", "pathFormat": "path",
		"columnsStartAt1": true, "linesStartAt1": true, "supportsRunInTerminalRequest": true, "supportsVariableType": true,
		"supportsProgressReporting": true, "supportsStartDebuggingRequest": true, "locale": "en_US"}, "ddmbridge"},
	{"dap-mode", map[string]any{"clientID": "vscode", "clientName": "Visual Studio Code", "adapterID": "ddmbridge", "pathFormat": "path",
		"linesStartAt1": true, "columnsStartAt1": true, "supportsVariableType": true, "supportsVariablePaging": true,
		"supportsRunInTerminalRequest": true, "locale": "en-us"}, "ddmbridge"},
}

// TestEditorConfigs starts the adapter as docs/editors.md tells nvim-dap
// (type executable, command ddmbridge, args {"dap"}) and dap-mode
// (:dap-server-path ("ddmbridge" "dap")) to: `ddmbridge dap` on stdio,
// and runs the documented launch configuration of each editor with the
// initialize arguments the editor sends, on a real JVM: the breakpoint
// stops with the source file, and the program runs to its end.
func TestEditorConfigs(t *testing.T) {
	jvmtest.RequireJava(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "src", "com", "example")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	const app = `package com.example;

public class App {
    public static void main(String[] args) {
        int answer = 6 * 7;
        System.out.println("answer " + answer); // @print
    }
}
`
	file := filepath.Join(src, "App.java")
	if err := os.WriteFile(file, []byte(app), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	classes, err := jvmtest.CompileFiles(ctx, map[string][]byte{"com/example/App.java": []byte(app)})
	if err != nil {
		t.Fatal(err)
	}
	printLine := 6
	for _, ed := range editorClients {
		t.Run(ed.name, func(t *testing.T) {
			cmd := child(ctx, "dap", "--log-level", "disabled")
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() {
				stdin.Close()
				cmd.Wait()
			}()
			c := &stdioClient{t: t, w: stdin, r: bufio.NewReader(stdout)}
			c.request("initialize", ed.init)
			c.await("response", "initialize")
			c.request("launch", map[string]any{"type": ed.typ, "request": "launch", "name": "Launch App",
				"mainClass": "com.example.App", "classPaths": []string{classes}, "sourcePaths": []string{filepath.Join(dir, "src")}, "cwd": dir})
			c.await("response", "launch")
			c.await("event", "initialized")
			c.request("setBreakpoints", map[string]any{"source": map[string]any{"path": file}, "breakpoints": []map[string]any{{"line": printLine}}})
			c.await("response", "setBreakpoints")
			c.request("configurationDone", nil)
			c.await("response", "configurationDone")
			stop := c.await("event", "stopped")
			var th struct {
				Body struct {
					ThreadID int `json:"threadId"`
				} `json:"body"`
			}
			json.Unmarshal(stop, &th)
			c.request("stackTrace", map[string]any{"threadId": th.Body.ThreadID})
			var st godap.StackTraceResponse
			json.Unmarshal(c.await("response", "stackTrace"), &st)
			if f := st.Body.StackFrames; len(f) == 0 || f[0].Line != printLine || f[0].Source == nil || f[0].Source.Path != file {
				t.Fatalf("%s: top frame %+v, want App.java:%d", ed.name, f, printLine)
			}
			c.request("continue", map[string]any{"threadId": th.Body.ThreadID})
			c.await("event", "terminated")
			if !strings.Contains(c.output.String(), "answer 42") {
				t.Errorf("%s: program output %q", ed.name, c.output.String())
			}
			c.request("disconnect", nil)
			c.await("response", "disconnect")
		})
	}
}

// stdioClient drives an adapter on its stdio as an editor does.
type stdioClient struct {
	t      *testing.T
	w      io.Writer
	r      *bufio.Reader
	seq    int
	output strings.Builder
}

func (c *stdioClient) request(command string, args any) {
	c.t.Helper()
	c.seq++
	m := map[string]any{"seq": c.seq, "type": "request", "command": command}
	if args != nil {
		m["arguments"] = args
	}
	b, _ := json.Marshal(m)
	if err := godap.WriteBaseMessage(c.w, b); err != nil {
		c.t.Fatal(err)
	}
}

// await reads messages until one of type kind named name (a command or an
// event); a failed response ends the test.
func (c *stdioClient) await(kind, name string) []byte {
	c.t.Helper()
	for {
		raw, err := godap.ReadBaseMessage(c.r)
		if err != nil {
			c.t.Fatalf("waiting for %s %s: %v", kind, name, err)
		}
		var h struct {
			Type    string `json:"type"`
			Command string `json:"command"`
			Event   string `json:"event"`
			Success bool   `json:"success"`
			Body    struct {
				Output string `json:"output"`
			} `json:"body"`
		}
		json.Unmarshal(raw, &h)
		if h.Event == "output" {
			c.output.WriteString(h.Body.Output)
		}
		if h.Type == "response" && !h.Success {
			c.t.Fatalf("waiting for %s %s: %s", kind, name, raw)
		}
		if h.Type == kind && (h.Command == name || h.Event == name) {
			return raw
		}
	}
}

package dap

import (
	"os"
	"path/filepath"
	"testing"

	godap "github.com/google/go-dap"

	"github.com/ddmbridge/ddmbridge/ddm/hprof"
)

// TestDumpHeapOverDAP: dumpHeap on a stand-alone session attached to a
// local HotSpot VM writes a complete HPROF dump through HotSpot's attach
// mechanism, answers with its histogram's top and shows progress; the file
// parses and holds the program's own class. Asking again for the same path
// refuses to overwrite it, and the session goes on.
func TestDumpHeapOverDAP(t *testing.T) {
	vm := startLoop(t)
	c := startSession(t, Config{})
	c.send("initialize", map[string]any{"adapterID": "ddmbridge", "linesStartAt1": true, "columnsStartAt1": true,
		"pathFormat": "path", "supportsProgressReporting": true})
	expect[*godap.InitializeResponse](c)
	c.attach(map[string]any{"hostName": "127.0.0.1", "port": vm.Port, "sourcePaths": []string{fixtures(t)}})
	c.configurationDone()

	path := filepath.Join(t.TempDir(), "loop.hprof")
	c.send("dumpHeap", map[string]any{"path": path, "top": 1000})
	var started bool
	var r *dumpHeapResponse
	for r == nil {
		switch m := c.next().(type) {
		case *godap.ProgressStartEvent:
			started = m.Body.Title == "Dumping the heap"
		case *dumpHeapResponse:
			r = m
		case *godap.ErrorResponse:
			t.Fatalf("dumpHeap: %s", m.Body.Error.Format)
		}
	}
	if !started {
		t.Error("no progress while dumping")
	}
	b := r.Body
	st, err := os.Stat(path)
	if err != nil || b.Path != path || st.Size() != b.Bytes || b.Bytes < 1<<20 {
		t.Fatalf("dump %+v, file %v %v", b, st, err)
	}
	if b.Format != "JAVA PROFILE 1.0.2" || b.Objects < 1000 {
		t.Errorf("format %q, %d objects", b.Format, b.Objects)
	}
	// The body is the HPROF schema's dump: the reference width (a small
	// heap: compressed), not partial, no warnings.
	if b.Oops != "compressed" || b.Partial || b.Warnings == nil || len(b.Warnings) != 0 {
		t.Errorf("oops %q, partial %v, warnings %q: want compressed, false, []", b.Oops, b.Partial, b.Warnings)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := hprof.Parse(f, hprof.Options{})
	if err != nil {
		t.Fatalf("the dump does not parse: %v", err)
	}
	classes := map[string]bool{}
	for _, s := range b.Top {
		classes[s.Class] = true
	}
	for _, want := range []string{"java.lang.String", "java.lang.Class"} {
		if !classes[want] {
			t.Errorf("%s missing from the answer's histogram (%d rows)", want, len(b.Top))
		}
	}
	hasLoop := false
	for _, c := range h.Classes {
		hasLoop = hasLoop || c.Name == "Loop"
	}
	if !hasLoop {
		t.Error("the program's class Loop is not in the dump")
	}
	if h.NumObjects() != b.Objects {
		t.Errorf("the file has %d objects, the answer says %d", h.NumObjects(), b.Objects)
	}

	if st.Mode() != 0o600 {
		t.Errorf("the dump's mode is %v, want -rw------- (it holds the heap's secrets)", st.Mode())
	}
	c.send("dumpHeap", map[string]any{"path": path})
	c.expectError(ErrUnableToDumpHeap, "file exists")
	c.send("threads", nil)
	expect[*godap.ThreadsResponse](c)

	// force replaces the file; a symlink is refused even so.
	os.Chmod(path, 0o644)
	c.send("dumpHeap", map[string]any{"path": path, "force": true, "live": true})
	for r = nil; r == nil; {
		switch m := c.next().(type) {
		case *dumpHeapResponse:
			r = m
		case *godap.ErrorResponse:
			t.Fatalf("dumpHeap with force: %s", m.Body.Error.Format)
		}
	}
	if st, err := os.Lstat(path); err != nil || st.Mode() != 0o600 || st.Size() != r.Body.Bytes {
		t.Errorf("forced dump: %v %v, answer %d bytes", st, err, r.Body.Bytes)
	}
	link := filepath.Join(t.TempDir(), "link.hprof")
	os.Symlink(path, link)
	c.send("dumpHeap", map[string]any{"path": link, "force": true})
	c.expectError(ErrUnableToDumpHeap, "not a regular file")
}

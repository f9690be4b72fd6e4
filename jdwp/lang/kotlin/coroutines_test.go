package kotlin

import (
	"os"
	"slices"
	"testing"

	"github.com/ddmbridge/ddmbridge/jdwp/lang"
)

// testdata/ChainC.class is kotlinc 2.2.21's continuation class of the
// fixture's chainC (kotlintest/fixture/app/Coroutines.kt): suspended at
// delay (line 30: label 1) or yield (31) it spills n and before; at the
// second delay (33) n, before and after.
func TestDebugMetadata(t *testing.T) {
	b, err := os.ReadFile("testdata/ChainC.class")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := Lang.(lang.Suspending).SuspendPoints(b)
	if err != nil || sp == nil {
		t.Fatalf("SuspendPoints: %v, %v", sp, err)
	}
	if c, m, f := sp.Function(); c != "app.CoroutinesKt" || m != "chainC" || f != "Coroutines.kt" {
		t.Errorf("Function = %q %q %q", c, m, f)
	}
	for _, tc := range []struct {
		label int
		line  int
		names []string
	}{
		{0, 0, nil},
		{1, 30, []string{"I$0=n", "I$1=before"}},
		{2, 31, []string{"I$0=n", "I$1=before"}},
		{3, 33, []string{"I$0=n", "I$1=before", "I$2=after"}},
		{7, 0, nil},
	} {
		line, spilled := sp.At(tc.label)
		var got []string
		for _, s := range spilled {
			got = append(got, s.Field+"="+s.Name)
		}
		if line != tc.line || !slices.Equal(got, tc.names) {
			t.Errorf("At(%d) = %d %v, want %d %v", tc.label, line, got, tc.line, tc.names)
		}
	}
	// A class without @DebugMetadata has no suspension points.
	if sp, err := Lang.(lang.Suspending).SuspendPoints(minimalClass()); sp != nil || err != nil {
		t.Errorf("a class without annotations: %v, %v", sp, err)
	}
}

// minimalClass is a class file with no members and no attributes.
func minimalClass() []byte {
	return []byte{0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 61, 0, 3, 1, 0, 1, 'A', 7, 0, 1,
		0, 0x21, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
}

func TestCoroutineDump(t *testing.T) {
	text := `[{"name": "worker-\"1\"", "id": null, "dispatcher": "BlockingEventLoop@6d06d69c", "sequenceNumber": 3, "state": "SUSPENDED"},
	{"name": null, "id": 7, "dispatcher": null, "sequenceNumber": 4, "state": "RUNNING"}]`
	got, err := Lang.(lang.Suspending).CoroutineDump(text)
	if err != nil {
		t.Fatal(err)
	}
	want := []lang.CoroutineInfo{
		{ID: 3, Name: `worker-"1"`, State: "suspended", Dispatcher: "BlockingEventLoop@6d06d69c"},
		{ID: 4, CoroutineID: 7, State: "running"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("CoroutineDump = %+v, want %+v", got, want)
	}
	if _, err := Lang.(lang.Suspending).CoroutineDump(`[{"name": 1`); err == nil {
		t.Error("a cut dump decoded")
	}
}

// FuzzSuspendPoints: any bytes give suspension points or an error, and
// At answers for any label.
func FuzzSuspendPoints(f *testing.F) {
	b, err := os.ReadFile("testdata/ChainC.class")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b, 1)
	f.Add(minimalClass(), 0)
	f.Fuzz(func(t *testing.T, b []byte, label int) {
		sp, err := ReadDebugMetadata(b)
		if err != nil || sp == nil {
			return
		}
		sp.At(label)
	})
}

// FuzzCoroutineDump: any text decodes or fails, never panics.
func FuzzCoroutineDump(f *testing.F) {
	f.Add(`[{"name": "a", "id": 1, "dispatcher": "Dispatchers.Default", "sequenceNumber": 2, "state": "CREATED"}]`)
	f.Fuzz(func(t *testing.T, text string) {
		Lang.(lang.Suspending).CoroutineDump(text)
	})
}

package hprof

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// The VS Code extension's HPROF fixture is this package's JSON: its strict
// decoder (vscode-extension/src/heap/hprof.ts) is tested on what these types
// give for the sample dump. Regenerate it with
//
//	DDMBRIDGE_UPDATE_FIXTURES=1 go test ./ddm/hprof -run TestExtensionFixtures

var extFixture = filepath.Join("..", "..", "vscode-extension", "test", "fixtures", "hprof-results.json")

// fixtureResults are the results of every kind for the sample dump: its
// summary, the dominator tree's top and one level down, its diff from the
// Android variant, and the path to a String's array whole and elided.
type fixtureResults struct {
	Summary    json.RawMessage `json:"summary"`
	Dominators json.RawMessage `json:"dominators"`
	Drill      json.RawMessage `json:"drill"`
	Diff       json.RawMessage `json:"diff"`
	Path       json.RawMessage `json:"path"`
	Elided     json.RawMessage `json:"elided"`
	Paths      json.RawMessage `json:"paths"`      // merged paths to the sample's Strings
	ChainPaths json.RawMessage `json:"chainPaths"` // a path tree with a chain elided
	Incoming   json.RawMessage `json:"incoming"`
	Instances  json.RawMessage `json:"instances"`
	Retained   json.RawMessage `json:"retained"`
	Dump       json.RawMessage `json:"dump"`
}

func fixture(t testing.TB) fixtureResults {
	h := parseBytes(t, sample(t, 8, false))
	old := parseBytes(t, sample(t, 8, true))
	hist := h.Histogram()
	tree := h.Dominators().Tree()
	src := bytes.NewReader(sample(t, 8, false))
	p := h.PathTo(h.Lookup(0x2111), 0, src).Steps
	enc := func(v any) json.RawMessage {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	strs, _ := h.PathsToClass("/tmp/sample.hprof", "java.lang.String", PathOptions{Source: src})
	chDump := weakDump(t, 30)
	ch := parseBytes(t, chDump)
	chain := ch.PathsToObject("/tmp/chain.hprof", ch.Lookup(0x5000000), PathOptions{Chain: 10, Source: bytes.NewReader(chDump)})
	inst, _ := h.Instances("/tmp/sample.hprof", "java.lang.String", 1, 2, tree.Dominators)
	return fixtureResults{
		Paths:      enc(strs),
		ChainPaths: enc(chain),
		Incoming:   enc(h.Incoming("/tmp/sample.hprof", h.Lookup(0x2110), 0, 10, tree.Dominators, src)),
		Instances:  enc(inst),
		Retained:   enc(tree.ClassRetained("/tmp/sample.hprof")),
		Dump:       enc(DumpOf("/tmp/sample.hprof", 4096, h, hist, 3)),
		Summary:    enc(SummaryOf("/tmp/sample.hprof", h, hist)),
		Dominators: enc(tree.Level("/tmp/sample.hprof", Root, 3)),
		Drill:      enc(tree.Level("/tmp/sample.hprof", h.Lookup(0x2000), 0)),
		Diff:       enc(DiffOf("/tmp/sample.hprof", "/tmp/android.hprof", old.Histogram(), hist, 0)),
		Path:       enc(ElidePath(0x2111, p, 0)),
		Elided:     enc(ElidePath(0x2111, p, 2)),
	}
}

func TestExtensionFixtures(t *testing.T) {
	want, err := json.MarshalIndent(fixture(t), "", " ")
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	if os.Getenv("DDMBRIDGE_UPDATE_FIXTURES") == "1" {
		if err := os.WriteFile(extFixture, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(extFixture)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is not what the schema gives for the sample dump; regenerate it (DDMBRIDGE_UPDATE_FIXTURES=1)", extFixture)
	}
	var r fixtureResults
	if err := json.Unmarshal(got, &r); err != nil {
		t.Fatal(err)
	}
	if s, err := DecodeSummaryJSON(r.Summary); err != nil || len(s.Classes) == 0 {
		t.Errorf("summary: %v", err)
	}
	for name, b := range map[string]json.RawMessage{"dominators": r.Dominators, "drill": r.Drill} {
		if d, err := DecodeDominatorsJSON(b); err != nil || len(d.Children) == 0 {
			t.Errorf("%s: %d children, %v", name, len(d.Children), err)
		}
	}
	if d, err := DecodeDiffJSON(r.Diff); err != nil || len(d.Classes) == 0 {
		t.Errorf("diff: %v", err)
	}
	if p, err := DecodePathJSON(r.Path); err != nil || p.Elided != nil || p.Length != 4 {
		t.Errorf("path: %+v, %v", p, err)
	}
	if p, err := DecodePathJSON(r.Elided); err != nil || p.Elided == nil || p.Length != 4 || len(p.Steps) != 2 {
		t.Errorf("elided path: %+v, %v", p, err)
	}
	if p, err := DecodePathsJSON(r.Paths); err != nil || p.Objects != 3 || len(p.Roots) == 0 {
		t.Errorf("paths: %+v, %v", p, err)
	}
	if p, err := DecodePathsJSON(r.ChainPaths); err != nil || p.Objects != 1 || len(p.Roots) != 1 {
		t.Errorf("chain paths: %+v, %v", p, err)
	}
	if v, err := DecodeIncomingJSON(r.Incoming); err != nil || v.Total != 1 {
		t.Errorf("incoming: %+v, %v", v, err)
	}
	if v, err := DecodeInstancesJSON(r.Instances); err != nil || v.Total != 3 || len(v.Objects) != 2 {
		t.Errorf("instances: %+v, %v", v, err)
	}
	if v, err := DecodeRetainedJSON(r.Retained); err != nil || len(v.Classes) == 0 {
		t.Errorf("retained: %+v, %v", v, err)
	}
	if v, err := DecodeDumpJSON(r.Dump); err != nil || len(v.Top) != 3 {
		t.Errorf("dump: %+v, %v", v, err)
	}
}

// TestDecodersRefuse: the strict decoders refuse unknown fields, missing
// lists and numbers that do not add up.
func TestDecodersRefuse(t *testing.T) {
	for _, c := range []struct {
		name string
		data string
		dec  func([]byte) error
	}{
		{"summary with an unknown field", `{"classes":[],"heaps":[],"totals":{"classes":0,"instances":0,"bytes":0},"extra":1}`, decSummary},
		{"summary without classes", `{"heaps":[],"totals":{"classes":0,"instances":0,"bytes":0}}`, decSummary},
		{"summary with wrong totals", `{"classes":[{"class":"A","instances":1,"bytes":16}],"heaps":[],"totals":{"classes":1,"instances":2,"bytes":16}}`, decSummary},
		{"dominators out of order", `{"path":"/p","children":[{"id":1,"class":"A","size":8,"retained":8,"children":0},{"id":2,"class":"B","size":8,"retained":16,"children":0}],"more":0,"reachable":2,"total":24}`, decDominators},
		{"dominator retaining less than itself", `{"path":"/p","children":[{"id":1,"class":"A","size":16,"retained":8,"children":0}],"more":0,"reachable":1,"total":8}`, decDominators},
		{"diff whose delta is not new − old", `{"path":"/b","base":"/a","classes":[{"class":"A","instances":1,"bytes":0,"oldInstances":1,"oldBytes":0,"newInstances":1,"newBytes":0}],"totals":{"old":{"classes":0,"instances":0,"bytes":0},"new":{"classes":0,"instances":0,"bytes":0}}}`, decDiff},
		{"path whose length does not add up", `{"object":1,"length":5,"steps":[{"id":1,"class":"A","size":8,"root":"JNI global"}]}`, decPath},
		{"path with a gap outside its steps", `{"object":1,"length":5,"steps":[],"elided":{"after":3,"count":5,"classes":[]}}`, decPath},
		{"trailing data", `{"object":1,"length":0,"steps":[]} {}`, decPath},
		{"paths whose child has more targets", `{"path":"/d","target":"A","objects":2,"reached":2,"roots":[{"id":1,"class":"A","size":8,"targets":1,"children":[{"id":2,"class":"A","size":8,"targets":2,"children":[],"more":0}],"more":0}],"more":0}`, decPaths},
		{"paths reaching more than the objects", `{"path":"/d","target":"A","objects":1,"reached":2,"roots":[],"more":0}`, decPaths},
		{"incoming page past the total", `{"path":"/d","object":{"id":1,"class":"A","size":8},"total":1,"offset":1,"referrers":[{"id":2,"class":"B","size":8}],"instances":0}`, decIncoming},
		{"instances without objects", `{"path":"/d","class":"A","total":1,"offset":0}`, decInstances},
		{"retained not largest first", `{"path":"/d","classes":[{"class":"A","retained":1},{"class":"B","retained":2}]}`, decRetained},
		{"dump with an unknown oops", `{"path":"/d","bytes":1,"format":"F","objects":0,"oops":"narrow","partial":false,"warnings":[],"top":[]}`, decDump},
	} {
		if err := c.dec([]byte(c.data)); !errors.Is(err, ErrSchema) {
			t.Errorf("%s: %v, want ErrSchema", c.name, err)
		}
	}
}

func decSummary(b []byte) error    { _, err := DecodeSummaryJSON(b); return err }
func decDominators(b []byte) error { _, err := DecodeDominatorsJSON(b); return err }
func decDiff(b []byte) error       { _, err := DecodeDiffJSON(b); return err }
func decPath(b []byte) error       { _, err := DecodePathJSON(b); return err }
func decPaths(b []byte) error      { _, err := DecodePathsJSON(b); return err }
func decIncoming(b []byte) error   { _, err := DecodeIncomingJSON(b); return err }
func decInstances(b []byte) error  { _, err := DecodeInstancesJSON(b); return err }
func decRetained(b []byte) error   { _, err := DecodeRetainedJSON(b); return err }
func decDump(b []byte) error       { _, err := DecodeDumpJSON(b); return err }

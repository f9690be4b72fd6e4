package lang_test

import (
	"testing"

	"github.com/ddmbridge/ddmbridge/jdwp/lang"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/java"
)

// named is a language that answers only to its name and extensions.
type named struct {
	lang.Language
	name string
	exts []string
}

func (n named) Name() string         { return n.name }
func (n named) Extensions() []string { return n.exts }

func TestSetPicksByExtension(t *testing.T) {
	kt := named{name: "Kotlin", exts: []string{".kt", ".kts"}}
	s := lang.Set{java.Lang, kt}
	for file, want := range map[string]string{
		"/src/com/example/App.java": "Java", "/src/App.KT": "Kotlin", "build.gradle.kts": "Kotlin",
		"README": "Java", "": "Java", "x.scala": "Java",
	} {
		if got := s.ForFile(file).Name(); got != want {
			t.Errorf("ForFile(%q) = %s, want %s", file, got, want)
		}
	}
	for attr, want := range map[string]string{"App.java": "Java", "App.kt": "Kotlin", "": "Java"} {
		if got := s.ForClass(attr).Name(); got != want {
			t.Errorf("ForClass(%q) = %s, want %s", attr, got, want)
		}
	}
	for file, want := range map[string]string{"x.scala": "", "/a.b/README": "", "src/App.kt": "Kotlin", "App.java": "Java"} {
		got := ""
		if l := s.Claims(file); l != nil {
			got = l.Name()
		}
		if got != want {
			t.Errorf("Claims(%q) = %q, want %q", file, got, want)
		}
	}
	if (lang.Set{}).ForFile("a.java") != nil {
		t.Error("an empty set chose a language")
	}
}

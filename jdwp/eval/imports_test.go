package eval

import (
	"reflect"
	"testing"
)

// TestParseImports: the package and imports of a file, with comments,
// strings and annotations that look like declarations not taken for them.
func TestParseImports(t *testing.T) {
	src := `/* import fake.Comment; */
// import fake.Line;
@Deprecated(since = "import fake.InString;")
@java.lang.SuppressWarnings({"x", "y"})
package com.acme.app;

import com.acme.model.Box;
import com.acme.model . Shape ;
import com.acme.util.*;
import static com.acme.util.Fmt.money;
import static java.lang.Math.*;
import /* odd */ java.util.List;
import broken.;

/** import fake.Javadoc; */
public final class Main {
	import not.Taken;
}
`
	got := ParseImports([]byte(src))
	want := Imports{
		Package:        "com.acme.app",
		Single:         []string{"com.acme.model.Box", "com.acme.model.Shape", "java.util.List"},
		OnDemand:       []string{"com.acme.util"},
		Static:         []string{"com.acme.util.Fmt.money"},
		StaticOnDemand: []string{"java.lang.Math"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseImports:\n got %+v\nwant %+v", got, want)
	}
	for _, src := range []string{"", "package", "import", "@", "@interface X {}", "package a.b", "import a.*.b;", `"""`, "/*", "'", "import static;"} {
		ParseImports([]byte(src)) // no panic, whatever it finds
	}
	if got := ParseImports([]byte("import a.B;\nrecord R() {}\nimport c.D;")); !reflect.DeepEqual(got.Single, []string{"a.B"}) {
		t.Errorf("imports after the first type: %+v", got)
	}
}

// FuzzParseImports: any bytes are scanned without a panic or a hang.
func FuzzParseImports(f *testing.F) {
	f.Add([]byte("package a.b;\nimport c.D;\nimport static e.F.*;\nclass X {}"))
	f.Add([]byte("@A(\"(\") package p; import q.*;"))
	f.Fuzz(func(t *testing.T, src []byte) {
		im := ParseImports(src)
		for _, n := range append(im.Single, im.OnDemand...) {
			if n == "" {
				t.Fatalf("an empty name from %q", src)
			}
		}
	})
}

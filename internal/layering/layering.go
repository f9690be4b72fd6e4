package layering

import (
	"fmt"
	"strings"
)

// Module is the module path every rule is relative to.
const Module = "github.com/ddmbridge/ddmbridge"

// Layer numbers, bottom up. Dap and Bridge share a level: they are siblings.
const (
	Queue    = iota // jdwp/queue
	JDWP            // jdwp
	JDWPSub         // jdwp/*
	DDM             // ddm
	DDMSub          // ddm/*
	Internal        // internal/*
	Sibling         // dap/..., bridge/...
	Cmd             // cmd/...
)

// Place is where a package sits: its layer and, for the siblings, which one
// ("dap" or "bridge"; empty elsewhere).
type Place struct {
	Layer  int
	Family string
}

// Of returns the place of a package of the module, given its import path.
// ok is false for a path outside the module or in no known layer (a new
// top-level directory must be given a layer here before it is used).
func Of(importPath string) (p Place, ok bool) {
	rel, found := strings.CutPrefix(importPath, Module+"/")
	if !found {
		return Place{}, false
	}
	top, _, sub := strings.Cut(rel, "/")
	switch {
	case rel == "jdwp/queue":
		return Place{Layer: Queue}, true
	case top == "jdwp" && !sub:
		return Place{Layer: JDWP}, true
	case top == "jdwp":
		return Place{Layer: JDWPSub}, true
	case top == "ddm" && !sub:
		return Place{Layer: DDM}, true
	case top == "ddm":
		return Place{Layer: DDMSub}, true
	case top == "internal" && sub:
		return Place{Layer: Internal}, true
	case top == "dap" || top == "bridge":
		return Place{Layer: Sibling, Family: top}, true
	case top == "cmd" || top == "scripts": // scripts: the test script's own test
		return Place{Layer: Cmd}, true
	}
	return Place{}, false
}

// Package is what the rule needs of a package: go list -json's fields.
type Package struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

// Check returns one line per import that breaks the rule (none when the
// module keeps it): a package importing from a layer above its own, a
// sibling importing the other, a test below the siblings importing them or
// cmd, or a package of the module in no layer.
func Check(pkgs []Package) []string {
	var bad []string
	for _, pkg := range pkgs {
		from, ok := Of(pkg.ImportPath)
		if !ok {
			if strings.HasPrefix(pkg.ImportPath, Module+"/") {
				bad = append(bad, fmt.Sprintf("%s: in no layer; give its directory one in internal/layering.Of", pkg.ImportPath))
			}
			continue
		}
		for _, imp := range pkg.Imports {
			to, ok := Of(imp)
			if !ok {
				continue
			}
			switch {
			case to.Layer > from.Layer:
				bad = append(bad, fmt.Sprintf("%s imports %s, from a layer above its own", pkg.ImportPath, imp))
			case to.Layer == Sibling && from.Layer == Sibling && to.Family != from.Family:
				bad = append(bad, fmt.Sprintf("%s imports %s: dap and bridge are siblings, neither imports the other", pkg.ImportPath, imp))
			}
		}
		if from.Layer >= Sibling {
			continue
		}
		for _, imp := range append(append([]string(nil), pkg.TestImports...), pkg.XTestImports...) {
			if to, ok := Of(imp); ok && to.Layer >= Sibling {
				bad = append(bad, fmt.Sprintf("%s's tests import %s: nothing below dap and bridge imports them or cmd", pkg.ImportPath, imp))
			}
		}
	}
	return bad
}

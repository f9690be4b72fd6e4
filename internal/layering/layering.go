package layering

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
)

// Module is the module path every rule is relative to.
const Module = "github.com/ddmbridge/ddmbridge"

// Layer numbers, bottom up. Dap and Bridge share a level: they are siblings;
// so do the debugger layer and evaluation over the mirror.
const (
	Queue    = iota // jdwp/queue: lanes and queues, a leaf the JDWP client builds on
	Wire            // jdwp: the JDWP client (framing, the connection, ids, values, commands)
	Facts           // jdwp/* below the mirror: javalang, classfile, smap, hostproc, localjvm, bench, jvmrun, kotlinrun, jvmtest
	Mirror          // jdwp/mirror: the VM model
	Lang            // jdwp/lang/...: the source-language seam and each language's floor; jdwp/srclookup
	Debugger        // jdwp/debugger, jdwp/eval (evaluation over the mirror), jdwp/jdwptest
	DDM             // ddm
	DDMSub          // ddm/*
	Internal        // internal/*
	Sibling         // dap/..., bridge/...
	Cmd             // cmd/..., scripts
)

// LayerNames name the layers in messages.
var LayerNames = [...]string{"jdwp/queue", "the JDWP wire", "JDWP facts", "the mirror", "the language floors",
	"the debugger layer", "ddm", "ddm/*", "internal/*", "dap and bridge", "cmd"}

// facts are the jdwp/* packages below the mirror, by name; a new jdwp/*
// package must be given a layer here (or live under jdwp/lang).
var facts = map[string]bool{"javalang": true, "classfile": true, "hostproc": true, "localjvm": true, "bench": true, "jvmrun": true, "jvmtest": true, "linkproxy": true, "smap": true, "kotlinrun": true}

// Kinds of packages that production code must not import.
const (
	// Runner: simulators and sample VMs. The binary ships them as commands
	// (simvm, simdevice, demo, bench), so cmd imports them; nothing else
	// outside them does, but tests.
	Runner = "a simulator or sample VM"
	// Harness: test harnesses, never linked into the binary; only tests and
	// other harnesses import them.
	Harness = "a test harness"
)

// Kind says whether a package (path relative to the module) is a runner or
// a harness ("" for production code).
var Kind = map[string]string{
	"jdwp/jvmrun":                 Runner,
	"ddm/simvm":                   Runner,
	"bridge/adb/simdevice":        Runner,
	"bridge/demoapp":              Runner,
	"jdwp/linkproxy":              Runner, // the delayed link of bench link and its tests
	"jdwp/kotlinrun":              Runner, // the Kotlin compiler (bench kotlin, and kotlintest)
	"jdwp/jvmtest":                Harness,
	"jdwp/jdwptest":               Harness,
	"jdwp/lang/kotlin/kotlintest": Harness, // the Kotlin fixture and the tests' conveniences over kotlinrun
	"jdwp/lang/kotlin/kotlintest/kotlinfixture": Harness, // the fixture compiled for the extension's e2e test
	"bridge/adb/adbtest":                        Harness,
	"bridge/bridgetest":                         Harness, // what the tests under bridge share
	"internal/lockedbuf":                        Harness,
}

// Place is where a package sits: its layer and, for the siblings, which one
// ("dap" or "bridge"; empty elsewhere) and its floor within it.
type Place struct {
	Layer  int
	Family string
	Floor  int
}

// Floors within bridge/..., bottom up: what the monitor builds on (the adb
// client and its simulators, who may reach a listener, the sample app, the
// tests' harness); the JDWP multiplexer, which
// knows no monitor; the monitor; the control API, which reaches the monitor
// through its exported methods. A package imports only from its own floor
// or below.
const (
	BridgeBase    = iota // bridge/adb/..., bridge/access, bridge/demoapp, bridge/bridgetest
	BridgeMux            // bridge/mux
	BridgeMonitor        // bridge
	BridgeAPI            // bridge/rpc
)

// FloorNames name the floors within bridge in messages.
var FloorNames = [...]string{"what the monitor builds on", "the JDWP multiplexer", "the monitor", "the control API"}

// bridgeFloor returns the floor of a package under bridge/ (path relative
// to the module).
func bridgeFloor(rel string) int {
	switch {
	case rel == "bridge/mux" || strings.HasPrefix(rel, "bridge/mux/"):
		return BridgeMux
	case rel == "bridge/rpc" || strings.HasPrefix(rel, "bridge/rpc/"):
		return BridgeAPI
	case rel == "bridge" || strings.HasPrefix(rel, "bridge/internal/"):
		return BridgeMonitor
	}
	return BridgeBase
}

// Of returns the place of a package of the module, given its import path.
// ok is false for a path outside the module or in no known layer (a new
// top-level directory, or a new jdwp/* package, must be given a layer here
// before it is used).
func Of(importPath string) (p Place, ok bool) {
	rel, found := strings.CutPrefix(importPath, Module+"/")
	if !found {
		return Place{}, false
	}
	top, rest, sub := strings.Cut(rel, "/")
	second, _, _ := strings.Cut(rest, "/")
	switch {
	case rel == "jdwp/queue":
		return Place{Layer: Queue}, true
	case top == "jdwp" && !sub:
		return Place{Layer: Wire}, true
	case top == "jdwp" && facts[second]:
		return Place{Layer: Facts}, true
	case rel == "jdwp/mirror":
		return Place{Layer: Mirror}, true
	case top == "jdwp" && (second == "lang" || second == "srclookup"):
		return Place{Layer: Lang}, true
	case rel == "jdwp/debugger" || rel == "jdwp/eval" || rel == "jdwp/jdwptest":
		return Place{Layer: Debugger}, true
	case top == "ddm" && !sub:
		return Place{Layer: DDM}, true
	case top == "ddm":
		return Place{Layer: DDMSub}, true
	case top == "internal" && sub:
		return Place{Layer: Internal}, true
	case top == "bridge":
		return Place{Layer: Sibling, Family: top, Floor: bridgeFloor(rel)}, true
	case top == "dap":
		return Place{Layer: Sibling, Family: top}, true
	case top == "cmd" || top == "scripts": // scripts: the test script's own test
		return Place{Layer: Cmd}, true
	}
	return Place{}, false
}

// The wire rule: front ends (dap/...) and evaluation (jdwp/eval) reach the
// VM through the mirror and the debugger layer. They may name package
// jdwp's ids, values, tags, modifiers and error codes (the vocabulary every
// layer shares), never its connection or commands, and they hold no
// connection (no selector named Conn).
var (
	// WireRuled are the packages the wire rule holds: a path relative to
	// the module, or a prefix ending in "/".
	WireRuled = []string{"dap", "dap/", "jdwp/eval"}
	// WireAllowed are the names of package jdwp they may use.
	WireAllowed = map[string]bool{
		"ObjectID": true, "ThreadID": true, "ReferenceTypeID": true, "FrameID": true, "FieldID": true, "MethodID": true,
		"ClassLoaderID": true, "ClassObjectID": true, "ThreadGroupID": true, "StringID": true, "ArrayID": true,
		"TaggedObjectID": true, "Location": true, "Value": true, "Variable": true, "Tag": true, "TypeTag": true,
		"BoolValue": true, "ByteValue": true, "CharValue": true, "ShortValue": true, "IntValue": true, "LongValue": true,
		"FloatValue": true, "DoubleValue": true, "ObjectValue": true, "TagForSignature": true,
		"MethodInfo": true, "FieldInfo": true, "ClassInfo": true, "VersionInfo": true, "ClassPathInfo": true,
		"InvokeResult": true, "Capabilities": true, "ClassPrepared": true, "StepDepth": true, "StepInto": true,
		"StepOver": true, "StepOut": true, "Code": true, "ErrorCode": true, "ConnError": true, "ErrClosed": true,
		"Options": true, // a connection's options (logging, tracing, timeouts), handed to the debugger layer
	}
	// WireAllowedPrefixes are families of names they may use: tags,
	// modifier bits, JDWP error codes.
	WireAllowedPrefixes = []string{"Tag", "Acc", "Err"}
)

// The seam rule: outside jdwp/lang, code reaches a source language through
// the seam (jdwp/lang) and the list of languages (jdwp/lang/langs), never a
// language's floor (jdwp/lang/java/...) — but for the packages named here,
// which every language shares.
var SeamAllowed = map[string]string{
	"jdwp/lang/java/expr":    "the JVM's values and evaluation environments, which every language evaluates into",
	"jdwp/lang/java/fngen":   "lambdas and method references compiled into classes for the VM (evaluation defines them)",
	"jdwp/lang/java/outline": "a class without source, shown as source would show it whatever compiled it",
}

// floor returns the language whose floor a package (path relative to the
// module) is in ("java" for jdwp/lang/java/expr), or "".
func floor(rel string) string {
	rest, ok := strings.CutPrefix(rel, "jdwp/lang/")
	if !ok {
		return ""
	}
	lang, _, _ := strings.Cut(rest, "/")
	if lang == "langs" {
		return ""
	}
	return lang
}

func wireRuled(rel string) bool {
	for _, r := range WireRuled {
		if rel == r || strings.HasSuffix(r, "/") && strings.HasPrefix(rel, r) {
			return true
		}
	}
	return false
}

func wireAllowed(name string) bool {
	if WireAllowed[name] {
		return true
	}
	for _, p := range WireAllowedPrefixes {
		if strings.HasPrefix(name, p) && len(name) > len(p) && name[len(p)] >= 'A' && name[len(p)] <= 'Z' {
			return true
		}
	}
	return false
}

// Package is what the rule needs of a package: go list -json's fields,
// and the wire names its files use (ReadWireNames).
type Package struct {
	ImportPath   string
	Dir          string
	GoFiles      []string
	Imports      []string
	TestImports  []string
	XTestImports []string
	// WireNames are the selectors of the package's non-test files on
	// package jdwp ("Handshake"), and ".Conn" for any selector named Conn.
	WireNames []string `json:"-"`
}

// ReadWireNames parses the package's non-test files and fills WireNames.
func (p *Package) ReadWireNames() error {
	names := map[string]bool{}
	fset := token.NewFileSet()
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		local, pkgs := "", map[string]bool{} // jdwp's name in the file; every import's
		for _, imp := range f.Imports {
			path := strings.Trim(imp.Path.Value, `"`)
			name := path[strings.LastIndexByte(path, '/')+1:]
			if imp.Name != nil {
				name = imp.Name.Name
			}
			pkgs[name] = true
			if path == Module+"/jdwp" {
				local = name
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			id, qualified := sel.X.(*ast.Ident)
			switch {
			case qualified && local != "" && id.Name == local:
				names[sel.Sel.Name] = true
			case qualified && pkgs[id.Name]: // another package's Conn (net.Conn)
			case sel.Sel.Name == "Conn":
				names[".Conn"] = true
			}
			return true
		})
	}
	p.WireNames = p.WireNames[:0]
	for n := range names {
		p.WireNames = append(p.WireNames, n)
	}
	sort.Strings(p.WireNames)
	return nil
}

// Check returns one line per import that breaks the rule (none when the
// module keeps it): a package importing from a layer above its own, a
// sibling importing the other, production code importing a simulator or a
// test harness, dap or evaluation using the JDWP wire, a test below the
// siblings importing them or cmd, or a package of the module in no layer.
func Check(pkgs []Package) []string {
	var bad []string
	for _, pkg := range pkgs {
		from, ok := Of(pkg.ImportPath)
		if !ok {
			if strings.HasPrefix(pkg.ImportPath, Module+"/") {
				bad = append(bad, fmt.Sprintf("%s: in no layer; give it one in internal/layering.Of", pkg.ImportPath))
			}
			continue
		}
		rel := strings.TrimPrefix(pkg.ImportPath, Module+"/")
		for _, imp := range pkg.Imports {
			to, ok := Of(imp)
			if !ok {
				continue
			}
			impRel := strings.TrimPrefix(imp, Module+"/")
			switch {
			case to.Layer > from.Layer:
				bad = append(bad, fmt.Sprintf("%s (%s) imports %s (%s), from a layer above its own", pkg.ImportPath, LayerNames[from.Layer], imp, LayerNames[to.Layer]))
			case to.Layer == Sibling && from.Layer == Sibling && to.Family != from.Family:
				bad = append(bad, fmt.Sprintf("%s imports %s: dap and bridge are siblings, neither imports the other", pkg.ImportPath, imp))
			case to.Layer == Sibling && from.Layer == Sibling && to.Floor > from.Floor:
				bad = append(bad, fmt.Sprintf("%s (%s) imports %s (%s), from a floor of bridge above its own", pkg.ImportPath, FloorNames[from.Floor], imp, FloorNames[to.Floor]))
			}
			if floor(impRel) != "" && !strings.HasPrefix(rel, "jdwp/lang/") && SeamAllowed[impRel] == "" {
				bad = append(bad, fmt.Sprintf("%s imports %s, a language's floor: it reaches languages through the seam (jdwp/lang, jdwp/lang/langs)", pkg.ImportPath, imp))
			}
			switch kind := Kind[impRel]; {
			case kind == "" || Kind[rel] != "":
			case kind == Runner && from.Layer == Cmd:
			default:
				bad = append(bad, fmt.Sprintf("%s imports %s, %s: production code imports neither simulators nor harnesses (move what it needs into a production package)", pkg.ImportPath, imp, kind))
			}
		}
		if wireRuled(rel) {
			for _, n := range pkg.WireNames {
				switch {
				case n == ".Conn":
					bad = append(bad, fmt.Sprintf("%s holds a JDWP connection (a selector named Conn): it reaches the VM through the mirror and the debugger layer", pkg.ImportPath))
				case !wireAllowed(n):
					bad = append(bad, fmt.Sprintf("%s uses jdwp.%s: it reaches the VM through the mirror and the debugger layer (ids, values and error codes are allowed by name in internal/layering.WireAllowed)", pkg.ImportPath, n))
				}
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

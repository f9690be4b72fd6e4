package debugger

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	"github.com/ddmbridge/ddmbridge/jdwp/lang"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
	"github.com/ddmbridge/ddmbridge/jdwp/smap"
)

// Breakpoints in inlined code.
//
// A compiler that inlines functions (Kotlin's inline functions and the
// lambdas passed to them) copies their code into each caller's class and
// says so in the caller's source map (JSR-45, SourceDebugExtension): the
// copied lines get JVM lines past the caller's file's end, which the map's
// default stratum maps back to the inline function's file and line. A
// breakpoint on such a line binds in the file's own classes and in every
// class whose source map names the file, at each JVM line the line became.
//
// Which classes: those loaded when the breakpoints are set, and those of
// the file's package (and below) as they load; a class of another package
// that inlines the file and loads later is found when the file's
// breakpoints are set again.

// Inliner is what a language implements to say its compiler inlines code
// across files (package jdwp/lang/kotlin does).
type Inliner interface {
	Inlines() bool
}

func inlines(l lang.Language) bool {
	i, ok := l.(Inliner)
	return ok && i.Inlines()
}

// packageOf is the package of a binary class name ("" for none).
func packageOf(binary string) string {
	if i := strings.LastIndexByte(binary, '.'); i >= 0 {
		return binary[:i]
	}
	return ""
}

// inlinerPatterns are the class-prepare patterns of the classes that may
// inline the file's code and load later: the file's package and below.
func inlinerPatterns(f *sourceFile) []string {
	if pkg := packageOf(f.class.Top()); pkg != "" {
		return []string{pkg + ".*"}
	}
	return nil
}

// mapNames reports whether a file entry of a source map is the file: the
// same name, in the file's package's directory.
func (f *sourceFile) mapNames(e smap.File) bool {
	if e.Name != filepath.Base(f.path) {
		return false
	}
	if e.Path == "" {
		return true
	}
	dir := strings.ReplaceAll(packageOf(f.class.Top()), ".", "/")
	if dir == "" {
		dir = "."
	}
	return path.Dir(e.Path) == dir
}

// inlinedIn reports whether class (not compiled from the file) holds code
// inlined from the file.
func (t *Target) inlinedIn(ctx context.Context, f *sourceFile, class jdwp.ReferenceTypeID) bool {
	s, err := t.VM.SourceMap(ctx, class)
	if err != nil || s == nil {
		return false
	}
	st := s.Stratum(s.DefaultStratum)
	if st == nil {
		return false
	}
	for i, e := range st.Files {
		if i > 0 && f.mapNames(e) { // the first file is the class's own
			return true
		}
	}
	return false
}

// mappedLines returns the JVM lines of class that source line line of the
// file became, through the class's source map; ok is false when the class
// has no map (its JVM lines are the file's).
func (t *Target) mappedLines(ctx context.Context, f *sourceFile, class jdwp.ReferenceTypeID, line int) ([]int, bool) {
	s, err := t.VM.SourceMap(ctx, class)
	if err != nil || s == nil {
		return nil, false
	}
	st := s.Stratum(s.DefaultStratum)
	if st == nil {
		return nil, false
	}
	return st.OutputLines(f.mapNames, line), true
}

// skipInlinerScan reports classes never worth reading a source map of when
// looking for inlined code: the JDK's and the Kotlin runtime's.
func skipInlinerScan(sig string) bool {
	for _, p := range []string{"Ljava/", "Ljavax/", "Ljdk/", "Lsun/", "Lcom/sun/", "Lkotlin/", "Lkotlinx/"} {
		if strings.HasPrefix(sig, p) {
			return true
		}
	}
	return false
}

// findInliners adds the loaded classes holding code inlined from the file.
// Callers hold bpMu.
func (t *Target) findInliners(ctx context.Context, f *sourceFile) error {
	all, err := t.VM.AllClasses(ctx)
	if err != nil {
		return err
	}
	var candidates []jdwp.ClassInfo
	for _, c := range all {
		if c.Status&jdwp.ClassPrepared == 0 || !strings.HasPrefix(c.Signature, "L") || skipInlinerScan(c.Signature) {
			continue
		}
		if _, own := f.classes[c.ID]; own {
			continue
		}
		candidates = append(candidates, c)
	}
	// Every candidate's source map at once (each is read once a session and
	// cached): a program of 2,000 classes cost 2,000 sequential round trips
	// read one by one (bench kotlin).
	found := make([]bool, len(candidates))
	mirror.Parallel(len(candidates), func(i int) error {
		found[i] = t.inlinedIn(ctx, f, candidates[i].ID)
		return nil
	})
	for i, c := range candidates {
		if found[i] {
			f.inlined[c.ID] = javalang.TypeName(c.Signature)
		}
	}
	return nil
}

// installInlined sets bp in a class that inlines its file's code: at every
// JVM line its source line became there. Callers hold bpMu.
func (t *Target) installInlined(ctx context.Context, bp *breakpoint, class jdwp.ReferenceTypeID) error {
	bp.done[class] = true
	outs, _ := t.mappedLines(ctx, bp.file, class, bp.line)
	for _, out := range outs {
		locs, err := t.LineLocations(ctx, class, out)
		if err != nil {
			return err
		}
		for _, loc := range locs {
			id, err := t.Requests.Set(ctx, jdwp.EventBreakpoint, stopPolicy, jdwp.LocationOnly(loc))
			if err != nil {
				return fmt.Errorf("set breakpoint at line %d (inlined): %w", bp.line, err)
			}
			t.mu.Lock()
			bp.reqs = append(bp.reqs, id)
			t.bps.bpByReq[id] = bp
			t.mu.Unlock()
			bp.verified, bp.actual = true, bp.line
		}
	}
	return nil
}

// installInlinedAll sets every breakpoint of f in every class that inlines
// f's code, the classes' requests all at once (a breakpoint in an inline
// function inlined into 1,800 classes cost 1,800 sequential round trips set
// one class after another: bench kotlin). Callers hold bpMu.
func (t *Target) installInlinedAll(ctx context.Context, f *sourceFile) error {
	classes := make([]jdwp.ReferenceTypeID, 0, len(f.inlined))
	for c := range f.inlined {
		classes = append(classes, c)
	}
	for _, bp := range f.bps {
		if bp.bad != "" {
			continue
		}
		var todo []jdwp.ReferenceTypeID
		for _, c := range classes {
			if !bp.done[c] {
				todo = append(todo, c)
			}
		}
		ids := make([][]int32, len(todo))
		errs := make([]error, len(todo))
		mirror.Parallel(len(todo), func(i int) error {
			outs, _ := t.mappedLines(ctx, f, todo[i], bp.line)
			for _, out := range outs {
				locs, err := t.LineLocations(ctx, todo[i], out)
				if err != nil {
					errs[i] = err
					return nil
				}
				for _, loc := range locs {
					id, err := t.Requests.Set(ctx, jdwp.EventBreakpoint, stopPolicy, jdwp.LocationOnly(loc))
					if err != nil {
						errs[i] = fmt.Errorf("set breakpoint at line %d (inlined): %w", bp.line, err)
						return nil
					}
					ids[i] = append(ids[i], id)
				}
			}
			return nil
		})
		// What was set is recorded, whatever failed beside it.
		for i, c := range todo {
			bp.done[c] = true
			t.mu.Lock()
			for _, id := range ids[i] {
				bp.reqs = append(bp.reqs, id)
				t.bps.bpByReq[id] = bp
			}
			t.mu.Unlock()
			if len(ids[i]) > 0 {
				bp.verified, bp.actual = true, bp.line
			}
		}
		for _, err := range errs {
			if err != nil {
				return err
			}
		}
	}
	return nil
}

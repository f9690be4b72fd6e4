package debugger

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

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
// Which classes: those loaded when the breakpoints are set, those of the
// file's package (and below) as they load, and, while a breakpoint stands
// in an inline function's body (the language says which lines are), every
// class of any package that loads: one class-prepare request for the
// session, without a class filter but excluding the JDK's and the Kotlin
// and Android runtimes' packages (they cannot inline the program's code),
// each loaded class's source map read once (one command) while its thread
// waits, and the request cleared when the last such breakpoint goes. A VM
// that cannot give source maps (canGetSourceDebugExtension) gets no
// request.

// Inliner is what a language implements to say its compiler inlines code
// across files (package jdwp/lang/kotlin does).
type Inliner interface {
	Inlines() bool
}

// InlineBodier is what an Inliner implements to say which lines of a source
// (its text) are inline functions' bodies: breakpoints there follow the
// classes of every package as they load.
type InlineBodier interface {
	InlineBody(src []byte, line int) bool
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
		locs = t.inlinedColumn(ctx, bp, class, locs, out)
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

// inlinedColumn keeps, of the locations locs of JVM line out in a class
// inlining bp's file, those of the code bp's column stands in
// (byLambdaColumnInlined); all of them for a breakpoint without a column.
// Callers hold bpMu.
func (t *Target) inlinedColumn(ctx context.Context, bp *breakpoint, class jdwp.ReferenceTypeID, locs []jdwp.Location, out int) []jdwp.Location {
	li, ok := bp.file.lang.(LambdaInliner)
	if bp.column <= 0 || !ok || len(locs) == 0 {
		return locs
	}
	return t.byLambdaColumnInlined(ctx, li, bp.file, class, bp.file.inlined[class], locs, bp.line, out, bp.column)
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
				locs = t.inlinedColumn(ctx, bp, todo[i], locs, out)
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

// inlinerWatchExcluded are the packages the watch for classes inlining a
// file skips: the JDK's and the runtimes' (they are compiled before the
// program and cannot hold its inline functions' code).
var inlinerWatchExcluded = []string{
	"java.*", "javax.*", "jdk.*", "sun.*", "com.sun.*", "kotlin.*", "kotlinx.*",
	"android.*", "androidx.*", "dalvik.*", "libcore.*", "com.android.*", "org.jetbrains.annotations.*",
}

// markInlineBodies notes which of f's breakpoints stand in an inline
// function's body (read from the file's text). Callers hold bpMu.
func (t *Target) markInlineBodies(f *sourceFile) {
	b, ok := f.lang.(InlineBodier)
	if !ok || !inlines(f.lang) || len(f.bps) == 0 {
		return
	}
	src, err := os.ReadFile(f.path)
	if err != nil {
		return
	}
	for _, bp := range f.bps {
		bp.inlineBody = bp.bad == "" && b.InlineBody(src, bp.line)
	}
}

// inlineBodyBPs reports whether a breakpoint of any file stands in an
// inline function's body. Callers hold bpMu.
func (t *Target) inlineBodyBPs() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, f := range t.bps.files {
		for _, bp := range f.bps {
			if bp.inlineBody {
				return true
			}
		}
	}
	return false
}

// watchInliners sets the session's watch for classes of any package that
// may inline a file's code, when a breakpoint stands in an inline body and
// no watch is set, and the VM can give source maps. It returns at once with
// the request queued (commands sent after it reach the VM after it: a
// class listed after it is either listed or seen by it); wait reports the
// outcome. Callers hold bpMu.
func (t *Target) watchInliners(ctx context.Context) (wait func() error) {
	none := func() error { return nil }
	t.mu.Lock()
	set := t.bps.inlinerWatch != 0
	t.mu.Unlock()
	if set || !t.inlineBodyBPs() {
		return none
	}
	caps, err := t.Conn.Capabilities(ctx)
	if err != nil || !caps.CanGetSourceDebugExtension {
		return none
	}
	mods := make([]jdwp.Modifier, len(inlinerWatchExcluded))
	for i, p := range inlinerWatchExcluded {
		mods[i] = jdwp.ClassExclude(p)
	}
	queued := make(chan struct{})
	sent := sync.OnceFunc(func() { close(queued) })
	done := make(chan error, 1)
	go func() {
		defer sent()
		id, err := t.Requests.Set(jdwp.WithQueued(ctx, sent), jdwp.EventClassPrepare, jdwp.SuspendEventThread, mods...)
		if err == nil {
			t.mu.Lock()
			t.bps.inlinerWatch = id
			t.mu.Unlock()
		}
		done <- err
	}()
	<-queued
	return func() error {
		if err := <-done; err != nil {
			return fmt.Errorf("watch for classes inlining the file: %w", err)
		}
		return nil
	}
}

// unwatchInliners clears the watch once no breakpoint stands in an inline
// body. Callers hold bpMu.
func (t *Target) unwatchInliners(ctx context.Context) {
	t.mu.Lock()
	id := t.bps.inlinerWatch
	t.mu.Unlock()
	if id == 0 || t.inlineBodyBPs() {
		return
	}
	t.mu.Lock()
	t.bps.inlinerWatch = 0
	t.mu.Unlock()
	t.Requests.Clear(ctx, jdwp.EventClassPrepare, id)
}

// isInlinerWatch reports whether a class-prepare event is the watch's; it
// waits for a SetBreakpoints under way (which may be setting it).
func (t *Target) isInlinerWatch(req int32) bool {
	t.bpMu.Lock()
	defer t.bpMu.Unlock()
	t.mu.Lock()
	defer t.mu.Unlock()
	return req != 0 && req == t.bps.inlinerWatch
}

// onInlinerPrepare binds the breakpoints of every file with a breakpoint in
// an inline body in a class that just loaded (its thread waits for it) and
// holds their code: its source map is read once (one command) and the
// files' breakpoints are set at the lines their lines became there.
func (t *Target) onInlinerPrepare(ctx context.Context, e jdwp.Event) {
	name := javalang.TypeName(e.Signature)
	t.bpMu.Lock()
	var files []*sourceFile
	t.mu.Lock()
	for _, f := range t.bps.files {
		if !inlines(f.lang) {
			continue
		}
		_, own := f.classes[e.RefType]
		_, known := f.inlined[e.RefType]
		if own || known || f.class.Holds(name, nil) {
			continue // its own class, or one the file's watch handles
		}
		for _, bp := range f.bps {
			if bp.inlineBody {
				files = append(files, f)
				break
			}
		}
	}
	t.mu.Unlock()
	var changed []BreakpointInfo
	for _, f := range files {
		if !t.inlinedIn(ctx, f, e.RefType) {
			continue
		}
		f.inlined[e.RefType] = name
		for _, bp := range f.bps {
			was := bp.verified
			if err := t.install(ctx, bp, e.RefType); err != nil {
				t.log.Warn().Err(err).Str("class", name).Msg("install breakpoint in inlined code")
			}
			if bp.verified && !was {
				changed = append(changed, bp.info())
			}
		}
	}
	t.bpMu.Unlock()
	for _, b := range changed {
		t.fe.BreakpointChanged(b)
	}
}

package dap

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/java/outline"
	"github.com/ddmbridge/ddmbridge/jdwp/srclookup"
	godap "github.com/google/go-dap"
)

// Classes without a local source file get a sourceReference; the source
// request answers it with a readable outline of the class — its
// declaration, fields and methods with their signatures — and each
// method's bytecode, disassembled with the class's constant pool (opcodes
// with resolved class, field and method names; "// line N" where a source
// line starts). loadedSources lists the top-level loaded classes, by path
// when sourcePaths has the file and by reference otherwise.

// autoSources finds sources when the session names no sourcePaths (see
// package srclookup): the workspace folders, archives beside the class
// path, the JDK's src.zip. Archive entries are shown by sourceReference,
// one per file.
type autoSources struct {
	folders   []string
	classPath []string // nil: ask the VM
	javaExec  string
	jdkOnly   bool // sourcePaths are set: the JDK's sources alone

	once sync.Once
	idx  *srclookup.Index

	mu    sync.Mutex
	refs  map[string]int
	found map[int]srclookup.Found
}

// useAutoSources turns zero-config source lookup on: folders are the
// workspace, classPath the launched program's (nil for an attached VM:
// its class path is asked for).
func (d *debuggee) useAutoSources(folders, classPath []string, javaExec string) {
	d.startAutoSources(&autoSources{folders: folders, classPath: classPath, javaExec: javaExec})
}

// useJDKSources turns the JDK's sources on beside sourcePaths: the
// debuggee's own JDK's src.zip (else javaExec's), nothing else.
func (d *debuggee) useJDKSources(javaExec string) {
	d.startAutoSources(&autoSources{classPath: []string{}, javaExec: javaExec, jdkOnly: true})
}

// startAutoSources sets a up, whole before the index is built from it.
func (d *debuggee) startAutoSources(a *autoSources) {
	a.refs, a.found = map[string]int{}, map[int]srclookup.Found{}
	d.srcs.auto = a
	// Index now, so the first stop finds it ready.
	d.s.wg.Add(1)
	go func() {
		defer d.s.wg.Done()
		d.autoIndex()
	}()
}

// vmJavaHome is the debuggee's java.home, read without running code (a
// static field: jdk.internal.util.StaticProperty.JAVA_HOME, set at start
// from the system property on JDK 11 and later); "" when the VM has none.
func (d *debuggee) vmJavaHome(ctx context.Context) string {
	if d.ddm != nil {
		return "" // an Android VM: no JDK
	}
	c, err := d.vm.ClassBySignature(ctx, "Ljdk/internal/util/StaticProperty;")
	if err != nil || c == 0 {
		return ""
	}
	// The field is StaticProperty's own: its declared fields are read,
	// not its hierarchy (two round trips fewer on a slow link).
	fs, err := d.vm.DeclaredFields(ctx, c)
	if err != nil {
		return ""
	}
	var v jdwp.Value
	for _, f := range fs {
		if f.Name == "JAVA_HOME" && f.ModBits&jdwp.AccStatic != 0 {
			vals, err := d.vm.ReadStatics(ctx, c, []jdwp.FieldID{f.ID})
			if err != nil || len(vals) != 1 {
				return ""
			}
			v = vals[0]
		}
	}
	if !v.Tag.IsObject() || v.IsNull() {
		return ""
	}
	home, err := d.vm.String(ctx, v.Object())
	if err != nil {
		return ""
	}
	return home
}

// indexTimeout bounds building the source index; what is indexed by then
// is used.
const indexTimeout = 20 * time.Second

// autoIndex builds the index once, bounded in time.
func (d *debuggee) autoIndex() *srclookup.Index {
	a := d.srcs.auto
	a.once.Do(func() {
		ctx, cancel := context.WithTimeout(d.s.ctx, indexTimeout)
		defer cancel()
		cp := a.classPath
		if cp == nil {
			if info, err := d.vm.ClassPaths(ctx); err == nil {
				for _, e := range info.ClassPaths {
					if !filepath.IsAbs(e) {
						e = filepath.Join(info.BaseDir, e)
					}
					cp = append(cp, e)
				}
			}
		}
		archives := srclookup.JDKSources(a.javaExec)
		if home := d.vmJavaHome(ctx); home != "" {
			archives = append(srclookup.JDKSourcesAt(home), archives...)
		}
		if a.jdkOnly {
			archives = archives[:min(len(archives), 1)]
			if d.ddm != nil {
				archives = nil // an Android VM: its libcore is no host JDK's
			}
		}
		idx, err := srclookup.New(ctx, srclookup.Sources{Languages: d.srcs.langs, Folders: a.folders, ClassPath: cp, Archives: archives})
		if err != nil {
			d.log.Warn().Err(err).Msg("index sources")
			idx, _ = srclookup.New(ctx, srclookup.Sources{})
		}
		a.idx = idx
	})
	return a.idx
}

// autoSource finds the source of rel ("java/lang/String.java") without
// sourcePaths, or returns nil.
func (d *debuggee) autoSource(rel string) *godap.Source {
	if d.srcs.auto == nil {
		return nil
	}
	f, ok := d.autoIndex().Find(rel)
	if !ok {
		return nil
	}
	name := path.Base(rel)
	if f.Path != "" {
		return &godap.Source{Name: name, Path: f.Path}
	}
	a := d.srcs.auto
	key := f.Archive + "!" + f.Entry
	a.mu.Lock()
	defer a.mu.Unlock()
	ref, ok := a.refs[key]
	if !ok {
		ref = d.refs.srcRefs.add(0)
		a.refs[key], a.found[ref] = ref, f
	}
	return &godap.Source{Name: name, SourceReference: ref, PresentationHint: "deemphasize", Origin: f.Origin()}
}

// archived returns the archive entry a sourceReference stands for.
func (d *debuggee) archived(ref int) (srclookup.Found, bool) {
	if d.srcs.auto == nil {
		return srclookup.Found{}, false
	}
	d.srcs.auto.mu.Lock()
	defer d.srcs.auto.mu.Unlock()
	f, ok := d.srcs.auto.found[ref]
	return f, ok
}

func (s *session) sourceOf(ctx context.Context, r *godap.SourceRequest) (godap.SourceResponseBody, error) {
	d := s.dbg
	ref := r.Arguments.SourceReference
	if r.Arguments.Source != nil && r.Arguments.Source.SourceReference != 0 {
		ref = r.Arguments.Source.SourceReference
	}
	if f, ok := d.archived(ref); ok {
		text, err := srclookup.Read(f)
		if err != nil {
			return godap.SourceResponseBody{}, err
		}
		return godap.SourceResponseBody{Content: string(text), MimeType: "text/x-java"}, nil
	}
	class, ok := d.refs.srcRefs.get(ref)
	if !ok {
		return godap.SourceResponseBody{}, fmt.Errorf("unknown sourceReference %d", ref)
	}
	text, err := d.outline(ctx, class)
	if err != nil {
		return godap.SourceResponseBody{}, err
	}
	return godap.SourceResponseBody{Content: text, MimeType: "text/x-java"}, nil
}

// sourceRef returns the sourceReference of a class (the same one each time).
func (d *debuggee) sourceRef(class jdwp.ReferenceTypeID) int {
	ref, _ := d.srcs.srcRefOf.Get(class, func() (int, error) { return d.refs.srcRefs.add(class), nil })
	return ref
}

// outline renders a class without source (package outline).
func (d *debuggee) outline(ctx context.Context, class jdwp.ReferenceTypeID) (string, error) {
	o, err := d.outlineOf(ctx, class)
	if err != nil {
		return "", err
	}
	return o.Text, nil
}

// outlineLine returns the outline line of the instruction at loc, or 0.
func (d *debuggee) outlineLine(ctx context.Context, loc jdwp.Location) int {
	o, err := d.outlineOf(ctx, loc.Class)
	if err != nil {
		return 0
	}
	return o.Line(loc)
}

func (d *debuggee) outlineOf(ctx context.Context, class jdwp.ReferenceTypeID) (*outline.Outline, error) {
	return d.srcs.outlines.Get(class, func() (*outline.Outline, error) {
		return outline.Render(ctx, d.vm, d.caps, class, d.t.Disassemble)
	})
}

func (s *session) loadedSources(ctx context.Context, r *godap.LoadedSourcesRequest) (godap.LoadedSourcesResponseBody, error) {
	d := s.dbg
	all, err := d.vm.AllClasses(ctx)
	if err != nil {
		return godap.LoadedSourcesResponseBody{}, err
	}
	var classes []jdwp.ClassInfo
	for _, c := range all {
		if c.Status&jdwp.ClassPrepared != 0 && strings.HasPrefix(c.Signature, "L") && !strings.Contains(c.Signature, "$") {
			classes = append(classes, c)
		}
	}
	p := s.startProgress(r.Seq, "Loading sources", fmt.Sprintf("%d classes", len(classes)))
	srcs := make([]*godap.Source, len(classes))
	var done atomic.Int64
	err = parallel(len(classes), func(i int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		src, err := d.source(ctx, classes[i].ID, classes[i].Signature)
		if err != nil && !isCollected(err) && jdwp.Code(err) != jdwp.ErrInvalidClass {
			return err
		}
		srcs[i] = src
		if n := done.Add(1); n%200 == 0 {
			p.Update(fmt.Sprintf("%d of %d classes", n, len(classes)), int(100*n/int64(len(classes))))
		}
		return nil
	})
	if err != nil {
		p.End("failed")
		return godap.LoadedSourcesResponseBody{}, err
	}
	p.End("")
	seen := map[string]bool{}
	out := []godap.Source{}
	for _, src := range srcs {
		if src == nil {
			continue
		}
		key := src.Path
		if key == "" {
			key = fmt.Sprint(src.SourceReference)
		}
		if !seen[key] {
			seen[key] = true
			out = append(out, *src)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		return path.Join(out[i].Origin, out[i].Name) < path.Join(out[j].Origin, out[j].Name)
	})
	return godap.LoadedSourcesResponseBody{Sources: out}, nil
}

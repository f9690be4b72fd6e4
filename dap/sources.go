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

	"github.com/ddmbridge/ddmbridge/dap/srclookup"
	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
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
	d.srcs.auto = &autoSources{folders: folders, classPath: classPath, javaExec: javaExec, refs: map[string]int{}, found: map[int]srclookup.Found{}}
	// Index now, so the first stop finds it ready.
	d.s.wg.Add(1)
	go func() {
		defer d.s.wg.Done()
		d.autoIndex()
	}()
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
			if info, err := d.conn.ClassPaths(ctx); err == nil {
				for _, e := range info.ClassPaths {
					if !filepath.IsAbs(e) {
						e = filepath.Join(info.BaseDir, e)
					}
					cp = append(cp, e)
				}
			}
		}
		idx, err := srclookup.New(ctx, srclookup.Sources{Folders: a.folders, ClassPath: cp, Archives: srclookup.JDKSources(a.javaExec)})
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

// modifierNames renders access flags as Java source writes them.
func modifierNames(bits int32, method bool) string {
	var out []string
	for _, m := range []struct {
		bit  int32
		name string
	}{{0x1, "public"}, {0x2, "private"}, {0x4, "protected"}, {0x8, "static"}, {0x10, "final"}, {0x20, "synchronized"},
		{0x40, "volatile"}, {0x80, "transient"}, {0x100, "native"}, {0x400, "abstract"}} {
		if bits&m.bit == 0 {
			continue
		}
		switch {
		case method && m.bit == 0x20:
			out = append(out, m.name)
		case m.bit == 0x20, method && (m.bit == 0x40 || m.bit == 0x80):
			continue // ACC_SUPER on classes; bridge and varargs on methods
		default:
			out = append(out, m.name)
		}
	}
	if len(out) == 0 {
		return ""
	}
	return strings.Join(out, " ") + " "
}

// outlined is a class's outline and, per method, the outline line of each
// instruction (ascending offsets), so a frame in the outline highlights the
// instruction it is at.
type outlined struct {
	text  string
	lines map[jdwp.MethodID][]insLine
}

type insLine struct {
	offset uint64
	line   int
}

// outline renders a class without source.
func (d *debuggee) outline(ctx context.Context, class jdwp.ReferenceTypeID) (string, error) {
	o, err := d.outlineOf(ctx, class)
	if err != nil {
		return "", err
	}
	return o.text, nil
}

// outlineLine returns the outline line of the instruction at loc, or 0.
func (d *debuggee) outlineLine(ctx context.Context, loc jdwp.Location) int {
	o, err := d.outlineOf(ctx, loc.Class)
	if err != nil {
		return 0
	}
	line := 0
	for _, il := range o.lines[loc.Method] {
		if il.offset > loc.Index {
			break
		}
		line = il.line
	}
	return line
}

func (d *debuggee) outlineOf(ctx context.Context, class jdwp.ReferenceTypeID) (*outlined, error) {
	return d.srcs.outlines.Get(class, func() (*outlined, error) { return d.renderOutline(ctx, class) })
}

func (d *debuggee) renderOutline(ctx context.Context, class jdwp.ReferenceTypeID) (*outlined, error) {
	sig, err := d.vm.Signature(ctx, class)
	if err != nil {
		return nil, err
	}
	name := javalang.TypeName(sig)
	var b strings.Builder
	fmt.Fprintf(&b, "// %s: no source file in sourcePaths; an outline with the bytecode the VM runs.\n", name)
	if file, err := d.vm.SourceFile(ctx, class); err == nil {
		fmt.Fprintf(&b, "// Compiled from %s\n", file)
	}
	mods, _ := d.vm.Modifiers(ctx, class)
	kind := "class"
	switch {
	case mods&0x2000 != 0:
		kind = "@interface"
	case mods&0x200 != 0:
		kind, mods = "interface", mods&^0x400
	case mods&0x4000 != 0:
		kind = "enum"
	}
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		fmt.Fprintf(&b, "package %s;\n\n", name[:i])
	}
	fmt.Fprintf(&b, "%s%s %s", modifierNames(mods&^0x20, false), kind, simpleName(name))
	if sup, err := d.vm.Superclass(ctx, class); err == nil && sup != 0 {
		if ss, err := d.vm.Signature(ctx, sup); err == nil && ss != "Ljava/lang/Object;" {
			fmt.Fprintf(&b, " extends %s", javalang.TypeName(ss))
		}
	}
	if is, err := d.vm.Interfaces(ctx, class); err == nil && len(is) > 0 {
		names := make([]string, len(is))
		for i, it := range is {
			s, _ := d.vm.Signature(ctx, it)
			names[i] = javalang.TypeName(s)
		}
		word := " implements "
		if kind == "interface" {
			word = " extends "
		}
		b.WriteString(word + strings.Join(names, ", "))
	}
	b.WriteString(" {\n")
	fields, err := d.vm.DeclaredFields(ctx, class)
	if err != nil {
		return nil, err
	}
	for _, f := range fields {
		fmt.Fprintf(&b, "    %s%s %s;\n", modifierNames(f.ModBits, false), javalang.TypeName(f.Signature), f.Name)
	}
	methods, err := d.vm.Methods(ctx, class)
	if err != nil {
		return nil, err
	}
	bodies := make([]string, len(methods))
	offsets := make([][]int64, len(methods))
	err = parallel(len(methods), func(i int) error {
		bodies[i], offsets[i] = d.methodOutline(ctx, class, name, methods[i])
		return ctx.Err()
	})
	if err != nil {
		return nil, err
	}
	o := &outlined{lines: map[jdwp.MethodID][]insLine{}}
	for i, body := range bodies {
		b.WriteString("\n")
		first := strings.Count(b.String(), "\n") + 1 // the method's first line
		for j, off := range offsets[i] {
			if off >= 0 {
				o.lines[methods[i].ID] = append(o.lines[methods[i].ID], insLine{uint64(off), first + j})
			}
		}
		b.WriteString(body)
	}
	b.WriteString("}\n")
	o.text = b.String()
	return o, nil
}

// methodOutline renders one method: its declaration and its bytecode; offs
// has, for each line of it, the offset of the instruction on it or -1.
func (d *debuggee) methodOutline(ctx context.Context, class jdwp.ReferenceTypeID, className string, m jdwp.MethodInfo) (text string, offs []int64) {
	var b strings.Builder
	params, ret := javalang.ParamSigs(m.Signature)
	names := make([]string, len(params))
	for i, p := range params {
		names[i] = javalang.TypeName(p)
	}
	switch m.Name {
	case "<clinit>":
		b.WriteString("    static {}")
	case "<init>":
		fmt.Fprintf(&b, "    %s%s(%s)", modifierNames(m.ModBits, true), simpleName(className), strings.Join(names, ", "))
	default:
		fmt.Fprintf(&b, "    %s%s %s(%s)", modifierNames(m.ModBits, true), javalang.TypeName(ret), m.Name, strings.Join(names, ", "))
	}
	fmt.Fprintf(&b, " // %s\n", m.Signature)
	offs = append(offs, -1)
	if m.ModBits&(jdwp.AccNative|jdwp.AccAbstract) != 0 {
		return b.String(), nil
	}
	if !d.caps.CanGetBytecodes || !d.caps.CanGetConstantPool {
		b.WriteString("        // bytecode unavailable: this VM cannot show it (CanGetBytecodes or CanGetConstantPool is false)\n")
		return b.String(), nil
	}
	ins, err := d.disassemble(ctx, class, m.ID)
	if err != nil {
		fmt.Fprintf(&b, "        // %v\n", err)
		offs = append(offs, -1)
	}
	lines := map[uint64]int32{}
	if lt, err := d.vm.LineTable(ctx, class, m.ID); err == nil {
		for _, e := range lt.Lines {
			lines[e.CodeIndex] = e.Line
		}
	}
	for _, in := range ins {
		if l, ok := lines[uint64(in.Offset)]; ok {
			fmt.Fprintf(&b, "        // line %d\n", l)
			offs = append(offs, -1)
		}
		fmt.Fprintf(&b, "      %s\n", in)
		offs = append(offs, int64(in.Offset))
	}
	return b.String(), offs
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
			p.update(fmt.Sprintf("%d of %d classes", n, len(classes)), int(100*n/int64(len(classes))))
		}
		return nil
	})
	if err != nil {
		p.end("failed")
		return godap.LoadedSourcesResponseBody{}, err
	}
	p.end("")
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

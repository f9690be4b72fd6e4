package dap

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/ddmbridge/ddmbridge/dap/expr"
	"github.com/ddmbridge/ddmbridge/jdwp"
	godap "github.com/google/go-dap"
)

// Classes without a local source file get a sourceReference; the source
// request answers it with a readable outline of the class — its
// declaration, fields and methods with their signatures — and each
// method's bytecode, disassembled with the class's constant pool (opcodes
// with resolved class, field and method names; "// line N" where a source
// line starts). loadedSources lists the top-level loaded classes, by path
// when sourcePaths has the file and by reference otherwise.

func (s *session) onSourceRequest(r *godap.SourceRequest) {
	ctx, cancel := s.reqCtx()
	defer cancel()
	d := s.dbg
	ref := r.Arguments.SourceReference
	if r.Arguments.Source != nil && r.Arguments.Source.SourceReference != 0 {
		ref = r.Arguments.Source.SourceReference
	}
	class, ok := d.srcRefs.get(ref)
	if !ok {
		s.sendError(&r.Request, ErrUnableToSource, fmt.Errorf("source: unknown sourceReference %d", ref))
		return
	}
	text, err := d.outline(ctx, class)
	if err != nil {
		s.sendError(&r.Request, ErrUnableToSource, fmt.Errorf("source: %w", err))
		return
	}
	s.send(&godap.SourceResponse{Response: newResponse(&r.Request), Body: godap.SourceResponseBody{Content: text, MimeType: "text/x-java"}})
}

// sourceRef returns the sourceReference of a class (the same one each time).
func (d *debuggee) sourceRef(class jdwp.ReferenceTypeID) int {
	ref, _ := d.srcRefOf.get(class, func() (int, error) { return d.srcRefs.add(class), nil })
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

// outline renders a class without source.
func (d *debuggee) outline(ctx context.Context, class jdwp.ReferenceTypeID) (string, error) {
	sig, err := d.signature(ctx, class)
	if err != nil {
		return "", err
	}
	name := sigToName(sig)
	var b strings.Builder
	fmt.Fprintf(&b, "// %s: no source file in sourcePaths; an outline with the bytecode the VM runs.\n", name)
	if file, err := d.conn.SourceFile(ctx, class); err == nil {
		fmt.Fprintf(&b, "// Compiled from %s\n", file)
	}
	mods, _ := d.conn.Modifiers(ctx, class)
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
	if sup, err := d.superclass(ctx, class); err == nil && sup != 0 {
		if ss, err := d.signature(ctx, sup); err == nil && ss != "Ljava/lang/Object;" {
			fmt.Fprintf(&b, " extends %s", sigToName(ss))
		}
	}
	if is, err := d.interfacesOf(ctx, class); err == nil && len(is) > 0 {
		names := make([]string, len(is))
		for i, it := range is {
			s, _ := d.signature(ctx, it)
			names[i] = sigToName(s)
		}
		word := " implements "
		if kind == "interface" {
			word = " extends "
		}
		b.WriteString(word + strings.Join(names, ", "))
	}
	b.WriteString(" {\n")
	fields, err := d.fieldsOf(ctx, class)
	if err != nil {
		return "", err
	}
	for _, f := range fields {
		fmt.Fprintf(&b, "    %s%s %s;\n", modifierNames(f.ModBits, false), expr.SignatureToName(f.Signature), f.Name)
	}
	methods, err := d.methodsOf(ctx, class)
	if err != nil {
		return "", err
	}
	bodies := make([]string, len(methods))
	err = parallel(len(methods), func(i int) error {
		bodies[i] = d.methodOutline(ctx, class, name, methods[i])
		return ctx.Err()
	})
	if err != nil {
		return "", err
	}
	for _, body := range bodies {
		b.WriteString("\n" + body)
	}
	b.WriteString("}\n")
	return b.String(), nil
}

// methodOutline renders one method: its declaration and its bytecode.
func (d *debuggee) methodOutline(ctx context.Context, class jdwp.ReferenceTypeID, className string, m jdwp.MethodInfo) string {
	var b strings.Builder
	params, ret := expr.ParamSigs(m.Signature)
	names := make([]string, len(params))
	for i, p := range params {
		names[i] = expr.SignatureToName(p)
	}
	switch m.Name {
	case "<clinit>":
		b.WriteString("    static {}")
	case "<init>":
		fmt.Fprintf(&b, "    %s%s(%s)", modifierNames(m.ModBits, true), simpleName(className), strings.Join(names, ", "))
	default:
		fmt.Fprintf(&b, "    %s%s %s(%s)", modifierNames(m.ModBits, true), expr.SignatureToName(ret), m.Name, strings.Join(names, ", "))
	}
	fmt.Fprintf(&b, " // %s\n", m.Signature)
	if m.ModBits&(jdwp.AccNative|jdwp.AccAbstract) != 0 {
		return b.String()
	}
	if !d.caps.CanGetBytecodes || !d.caps.CanGetConstantPool {
		b.WriteString("        // bytecode unavailable: this VM cannot show it (CanGetBytecodes or CanGetConstantPool is false)\n")
		return b.String()
	}
	ins, err := d.disassemble(ctx, class, m.ID)
	if err != nil {
		fmt.Fprintf(&b, "        // %v\n", err)
	}
	lines := map[uint64]int32{}
	if lt, err := d.lineTable(ctx, class, m.ID); err == nil {
		for _, e := range lt.Lines {
			lines[e.CodeIndex] = e.Line
		}
	}
	for _, in := range ins {
		if l, ok := lines[uint64(in.Offset)]; ok {
			fmt.Fprintf(&b, "        // line %d\n", l)
		}
		fmt.Fprintf(&b, "      %s\n", in)
	}
	return b.String()
}

func (s *session) onLoadedSourcesRequest(r *godap.LoadedSourcesRequest) {
	ctx, cancel := s.reqCtx()
	defer cancel()
	d := s.dbg
	all, err := d.conn.AllClasses(ctx)
	if err != nil {
		s.sendError(&r.Request, ErrUnableToSource, fmt.Errorf("loadedSources: %w", err))
		return
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
		s.sendError(&r.Request, ErrUnableToSource, fmt.Errorf("loadedSources: %w", err))
		return
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
	s.send(&godap.LoadedSourcesResponse{Response: newResponse(&r.Request), Body: godap.LoadedSourcesResponseBody{Sources: out}})
}

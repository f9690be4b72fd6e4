package outline

import (
	"context"
	"fmt"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/classfile"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
)

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

// Outline is a class's outline and, per method, the outline line of each
// instruction (ascending offsets), so a frame in the outline highlights the
// instruction it is at.
type Outline struct {
	Text  string
	lines map[jdwp.MethodID][]insLine
}

type insLine struct {
	offset uint64
	line   int
}

// Line returns the outline line of the instruction at loc, or 0.
func (o *Outline) Line(loc jdwp.Location) int {
	line := 0
	for _, il := range o.lines[loc.Method] {
		if il.offset > loc.Index {
			break
		}
		line = il.line
	}
	return line
}

// Disassembler decodes a method's bytecode (with its class's constant
// pool, which the caller caches).
type Disassembler func(ctx context.Context, class jdwp.ReferenceTypeID, method jdwp.MethodID) ([]classfile.Instruction, error)

// Render outlines a class: its declaration, fields, and each method's
// declaration and bytecode, as far as the VM can show them (caps).
func Render(ctx context.Context, vm *mirror.VM, caps jdwp.Capabilities, class jdwp.ReferenceTypeID, disasm Disassembler) (*Outline, error) {
	r := renderer{vm: vm, caps: caps, disasm: disasm}
	return r.render(ctx, class)
}

type renderer struct {
	vm     *mirror.VM
	caps   jdwp.Capabilities
	disasm Disassembler
}

func (d renderer) render(ctx context.Context, class jdwp.ReferenceTypeID) (*Outline, error) {
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
	fmt.Fprintf(&b, "%s%s %s", modifierNames(mods&^0x20, false), kind, javalang.SimpleName(name))
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
	err = mirror.Parallel(len(methods), func(i int) error {
		bodies[i], offsets[i] = d.methodOutline(ctx, class, name, methods[i])
		return ctx.Err()
	})
	if err != nil {
		return nil, err
	}
	o := &Outline{lines: map[jdwp.MethodID][]insLine{}}
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
	o.Text = b.String()
	return o, nil
}

// methodOutline renders one method: its declaration and its bytecode; offs
// has, for each line of it, the offset of the instruction on it or -1.
func (d renderer) methodOutline(ctx context.Context, class jdwp.ReferenceTypeID, className string, m jdwp.MethodInfo) (text string, offs []int64) {
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
		fmt.Fprintf(&b, "    %s%s(%s)", modifierNames(m.ModBits, true), javalang.SimpleName(className), strings.Join(names, ", "))
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
	ins, err := d.disasm(ctx, class, m.ID)
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

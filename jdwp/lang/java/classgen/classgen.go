package classgen

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
)

// Access flags.
const (
	AccPublic    uint16 = 0x0001
	AccPrivate   uint16 = 0x0002
	AccStatic    uint16 = 0x0008
	AccFinal     uint16 = 0x0010
	AccSuper     uint16 = 0x0020
	AccSynthetic uint16 = 0x1000
)

// Version is the class-file major version written (Java 5).
const Version = 49

// Class is a class file being built.
type Class struct {
	pool    pool
	access  uint16
	this    uint16
	super   uint16
	ifaces  []uint16
	fields  []member
	methods []*Code
	err     error
}

type member struct {
	access     uint16
	name, desc uint16
}

// New starts a public final class name (internal form, "a/b/C") extending
// super and implementing ifaces.
func New(name, super string, ifaces ...string) *Class {
	c := &Class{access: AccPublic | AccFinal | AccSuper | AccSynthetic}
	c.this = c.pool.class(name)
	c.super = c.pool.class(super)
	for _, i := range ifaces {
		c.ifaces = append(c.ifaces, c.pool.class(i))
	}
	return c
}

// Field declares a field.
func (c *Class) Field(access uint16, name, desc string) {
	c.fields = append(c.fields, member{access, c.pool.utf8(name), c.pool.utf8(desc)})
}

// Method starts a method; its parameters occupy the first locals (this
// first for an instance method).
func (c *Class) Method(access uint16, name, desc string) *Code {
	m := &Code{c: c, access: access, name: c.pool.utf8(name), desc: c.pool.utf8(desc)}
	m.maxLocals = ArgSlots(desc)
	if access&AccStatic == 0 {
		m.maxLocals++
	}
	c.methods = append(c.methods, m)
	return m
}

// Bytes returns the class file, or the first error any emitter recorded.
func (c *Class) Bytes() ([]byte, error) {
	code := c.pool.utf8("Code")
	if c.err == nil {
		c.err = c.pool.err
	}
	if c.err != nil {
		return nil, c.err
	}
	for _, m := range c.methods {
		if err := m.finish(); err != nil {
			return nil, err
		}
	}
	if len(c.pool.entries) >= 0xFFFF {
		return nil, errors.New("classgen: constant pool overflows 65535 entries")
	}
	b := []byte{0xCA, 0xFE, 0xBA, 0xBE}
	b = binary.BigEndian.AppendUint16(b, 0)
	b = binary.BigEndian.AppendUint16(b, Version)
	b = binary.BigEndian.AppendUint16(b, uint16(c.pool.count))
	for _, e := range c.pool.entries {
		b = append(b, e...)
	}
	b = binary.BigEndian.AppendUint16(b, c.access)
	b = binary.BigEndian.AppendUint16(b, c.this)
	b = binary.BigEndian.AppendUint16(b, c.super)
	b = binary.BigEndian.AppendUint16(b, uint16(len(c.ifaces)))
	for _, i := range c.ifaces {
		b = binary.BigEndian.AppendUint16(b, i)
	}
	b = binary.BigEndian.AppendUint16(b, uint16(len(c.fields)))
	for _, f := range c.fields {
		b = binary.BigEndian.AppendUint16(b, f.access)
		b = binary.BigEndian.AppendUint16(b, f.name)
		b = binary.BigEndian.AppendUint16(b, f.desc)
		b = binary.BigEndian.AppendUint16(b, 0)
	}
	b = binary.BigEndian.AppendUint16(b, uint16(len(c.methods)))
	for _, m := range c.methods {
		b = binary.BigEndian.AppendUint16(b, m.access)
		b = binary.BigEndian.AppendUint16(b, m.name)
		b = binary.BigEndian.AppendUint16(b, m.desc)
		b = binary.BigEndian.AppendUint16(b, 1) // Code
		b = binary.BigEndian.AppendUint16(b, code)
		b = binary.BigEndian.AppendUint32(b, uint32(12+len(m.buf)+8*len(m.handlers)))
		b = binary.BigEndian.AppendUint16(b, uint16(m.maxStack))
		b = binary.BigEndian.AppendUint16(b, uint16(m.maxLocals))
		b = binary.BigEndian.AppendUint32(b, uint32(len(m.buf)))
		b = append(b, m.buf...)
		b = binary.BigEndian.AppendUint16(b, uint16(len(m.handlers))) // exception table
		for _, h := range m.handlers {
			b = binary.BigEndian.AppendUint16(b, uint16(h.start.pc))
			b = binary.BigEndian.AppendUint16(b, uint16(h.end.pc))
			b = binary.BigEndian.AppendUint16(b, uint16(h.target.pc))
			b = binary.BigEndian.AppendUint16(b, h.class)
		}
		b = binary.BigEndian.AppendUint16(b, 0) // attributes
	}
	b = binary.BigEndian.AppendUint16(b, 0) // class attributes
	return b, nil
}

// ---- constant pool ----

const (
	tagUTF8        = 1
	tagInt         = 3
	tagFloat       = 4
	tagLong        = 5
	tagDouble      = 6
	tagClass       = 7
	tagString      = 8
	tagField       = 9
	tagMethod      = 10
	tagIfaceMethod = 11
	tagNameType    = 12
)

type pool struct {
	entries [][]byte
	count   int // next index; longs and doubles take two
	index   map[string]uint16
	err     error
}

func (p *pool) add(key string, e []byte, wide bool) uint16 {
	if p.index == nil {
		p.index, p.count = map[string]uint16{}, 1
	}
	if i, ok := p.index[key]; ok {
		return i
	}
	i := uint16(p.count)
	p.entries = append(p.entries, e)
	p.count++
	if wide {
		p.count++
	}
	p.index[key] = i
	return i
}

func (p *pool) utf8(s string) uint16 {
	m := modifiedUTF8(s)
	if len(m) > 0xFFFF {
		p.err = fmt.Errorf("classgen: a constant of %d bytes (the limit is 65535)", len(m))
		m = nil
	}
	e := append([]byte{tagUTF8, byte(len(m) >> 8), byte(len(m))}, m...)
	return p.add("u"+s, e, false)
}

func (p *pool) ref(tag byte, key string, a uint16) uint16 {
	return p.add(key, []byte{tag, byte(a >> 8), byte(a)}, false)
}

func (p *pool) ref2(tag byte, key string, a, b uint16) uint16 {
	return p.add(key, []byte{tag, byte(a >> 8), byte(a), byte(b >> 8), byte(b)}, false)
}

func (p *pool) class(name string) uint16 { return p.ref(tagClass, "c"+name, p.utf8(name)) }
func (p *pool) str(s string) uint16      { return p.ref(tagString, "s"+s, p.utf8(s)) }

func (p *pool) member(tag byte, owner, name, desc string) uint16 {
	nt := p.ref2(tagNameType, "n"+name+" "+desc, p.utf8(name), p.utf8(desc))
	return p.ref2(tag, fmt.Sprintf("m%d%s.%s %s", tag, owner, name, desc), p.class(owner), nt)
}

func (p *pool) num(tag byte, bits uint64, wide bool) uint16 {
	e := []byte{tag}
	if wide {
		e = binary.BigEndian.AppendUint64(e, bits)
	} else {
		e = binary.BigEndian.AppendUint32(e, uint32(bits))
	}
	return p.add(fmt.Sprintf("%d:%x", tag, bits), e, wide)
}

// modifiedUTF8 encodes s as class files do: NUL and supplementary
// characters in their Java forms.
func modifiedUTF8(s string) []byte {
	var b []byte
	for _, r := range s {
		switch {
		case r == 0:
			b = append(b, 0xC0, 0x80)
		case r < 0x80:
			b = append(b, byte(r))
		case r < 0x800:
			b = append(b, 0xC0|byte(r>>6), 0x80|byte(r&0x3F))
		case r < 0x10000:
			b = append(b, 0xE0|byte(r>>12), 0x80|byte(r>>6&0x3F), 0x80|byte(r&0x3F))
		default:
			r -= 0x10000
			for _, u := range []rune{0xD800 + r>>10, 0xDC00 + r&0x3FF} {
				b = append(b, 0xE0|byte(u>>12), 0x80|byte(u>>6&0x3F), 0x80|byte(u&0x3F))
			}
		}
	}
	return b
}

// ArgSlots is the number of local slots a method descriptor's parameters
// take (long and double take two).
func ArgSlots(desc string) int {
	n := 0
	params, _ := javalang.ParamSigs(desc)
	for _, p := range params {
		n += slots(p)
	}
	return n
}

func slots(t string) int {
	if t == "J" || t == "D" {
		return 2
	}
	if t == "V" {
		return 0
	}
	return 1
}

// ---- code ----

// Label is a branch target.
type Label struct {
	pc    int // -1 until marked
	stack int // operand depth at the target; -1 until known
	uses  []int
}

// handler is an exception table entry: exceptions of class (a pool
// index; 0 for any) thrown in [start, end) go to target.
type handler struct {
	start, end, target *Label
	class              uint16
}

// Code builds one method's bytecode.
type Code struct {
	handlers    []handler
	c           *Class
	access      uint16
	name, desc  uint16
	buf         []byte
	stack       int
	maxStack    int
	maxLocals   int
	labels      []*Label
	unreachable bool
}

func (m *Code) fail(format string, args ...any) {
	if m.c.err == nil {
		m.c.err = fmt.Errorf("classgen: "+format, args...)
	}
}

func (m *Code) adjust(delta int) {
	m.stack += delta
	if m.stack < 0 {
		m.fail("operand stack underflow at pc %d", len(m.buf))
		m.stack = 0
	}
	m.maxStack = max(m.maxStack, m.stack)
	m.unreachable = false
}

// Opcodes the builder emits.
const (
	AconstNull  = 0x01
	Ldc         = 0x12
	LdcW        = 0x13
	Ldc2W       = 0x14
	Iload       = 0x15
	Lload       = 0x16
	Fload       = 0x17
	Dload       = 0x18
	Aload       = 0x19
	Istore      = 0x36
	Astore      = 0x3a
	Aaload      = 0x32
	Aastore     = 0x53
	Pop         = 0x57
	Pop2        = 0x58
	Dup         = 0x59
	Swap        = 0x5f
	Ifeq        = 0x99
	Ifne        = 0x9a
	Goto        = 0xa7
	Ireturn     = 0xac
	Lreturn     = 0xad
	Freturn     = 0xae
	Dreturn     = 0xaf
	Areturn     = 0xb0
	Return      = 0xb1
	Getstatic   = 0xb2
	Putstatic   = 0xb3
	Getfield    = 0xb4
	Putfield    = 0xb5
	Invokevirt  = 0xb6
	Invokespec  = 0xb7
	Invokestat  = 0xb8
	Invokeiface = 0xb9
	NewObj      = 0xbb
	Anewarray   = 0xbd
	Athrow      = 0xbf
	Checkcast   = 0xc0
	Instanceof  = 0xc1
)

// simple lists the stack effect of the operand-less opcodes Op accepts.
var simple = map[byte]int{
	AconstNull: 1, Aaload: -1, Aastore: -3, Pop: -1, Pop2: -2, Dup: 1, Swap: 0,
	Ireturn: -1, Lreturn: -2, Freturn: -1, Dreturn: -2, Areturn: -1, Return: 0, Athrow: -1,
}

// Op emits an instruction without operands.
func (m *Code) Op(op byte) {
	d, ok := simple[op]
	if !ok {
		m.fail("opcode %#x needs operands", op)
		return
	}
	m.buf = append(m.buf, op)
	m.adjust(d)
	switch op {
	case Ireturn, Lreturn, Freturn, Dreturn, Areturn, Return, Athrow:
		m.stack, m.unreachable = 0, true
	}
}

// Load pushes local slot n of type t ("I", "J", "Ljava/lang/Object;"...).
func (m *Code) Load(t string, n int) {
	op := byte(Aload)
	switch t {
	case "Z", "B", "C", "S", "I":
		op = Iload
	case "J":
		op = Lload
	case "F":
		op = Fload
	case "D":
		op = Dload
	}
	m.local(op, n, slots(t))
	m.adjust(slots(t))
}

// Store pops an object reference into local slot n.
func (m *Code) Store(n int) {
	m.local(Astore, n, 1)
	m.adjust(-1)
}

func (m *Code) local(op byte, n, size int) {
	if n > 0xFF {
		m.fail("local slot %d beyond 255", n)
		return
	}
	m.buf = append(m.buf, op, byte(n))
	m.maxLocals = max(m.maxLocals, n+size)
}

// Int pushes an int constant.
func (m *Code) Int(v int32) {
	switch {
	case v >= -1 && v <= 5:
		m.buf = append(m.buf, byte(0x03+v)) // iconst_m1..iconst_5
	case v >= math.MinInt8 && v <= math.MaxInt8:
		m.buf = append(m.buf, 0x10, byte(v)) // bipush
	case v >= math.MinInt16 && v <= math.MaxInt16:
		m.buf = append(m.buf, 0x11, byte(v>>8), byte(v)) // sipush
	default:
		m.ldc(m.c.pool.num(tagInt, uint64(uint32(v)), false))
		return
	}
	m.adjust(1)
}

// Long, Float and Double push constants; String a string; Class a
// java.lang.Class (internal name or array descriptor).
func (m *Code) Long(v int64)     { m.ldc2(m.c.pool.num(tagLong, uint64(v), true)) }
func (m *Code) Double(v float64) { m.ldc2(m.c.pool.num(tagDouble, math.Float64bits(v), true)) }
func (m *Code) Float(v float32) {
	m.ldc(m.c.pool.num(tagFloat, uint64(math.Float32bits(v)), false))
}
func (m *Code) String(s string)   { m.ldc(m.c.pool.str(s)) }
func (m *Code) Class(name string) { m.ldc(m.c.pool.class(name)) }

func (m *Code) ldc(i uint16) {
	if i <= 0xFF {
		m.buf = append(m.buf, Ldc, byte(i))
	} else {
		m.buf = append(m.buf, LdcW, byte(i>>8), byte(i))
	}
	m.adjust(1)
}

func (m *Code) ldc2(i uint16) {
	m.buf = append(m.buf, Ldc2W, byte(i>>8), byte(i))
	m.adjust(2)
}

// Type emits new, anewarray, checkcast or instanceof on class.
func (m *Code) Type(op byte, class string) {
	i := m.c.pool.class(class)
	m.buf = append(m.buf, op, byte(i>>8), byte(i))
	switch op {
	case NewObj:
		m.adjust(1)
	case Anewarray, Checkcast, Instanceof:
		m.adjust(0)
	default:
		m.fail("opcode %#x takes no class", op)
	}
}

// Field emits getfield, putfield, getstatic or putstatic.
func (m *Code) Field(op byte, owner, name, desc string) {
	i := m.c.pool.member(tagField, owner, name, desc)
	m.buf = append(m.buf, op, byte(i>>8), byte(i))
	s := slots(desc)
	switch op {
	case Getstatic:
		m.adjust(s)
	case Putstatic:
		m.adjust(-s)
	case Getfield:
		m.adjust(s - 1)
	case Putfield:
		m.adjust(-s - 1)
	default:
		m.fail("opcode %#x is not a field access", op)
	}
}

// Invoke emits invokevirtual, invokespecial, invokestatic or
// invokeinterface of owner.name desc.
func (m *Code) Invoke(op byte, owner, name, desc string) {
	tag := byte(tagMethod)
	if op == Invokeiface {
		tag = tagIfaceMethod
	}
	i := m.c.pool.member(tag, owner, name, desc)
	m.buf = append(m.buf, op, byte(i>>8), byte(i))
	args := ArgSlots(desc)
	if op != Invokestat {
		args++
	}
	if op == Invokeiface {
		m.buf = append(m.buf, byte(args), 0)
	}
	_, ret := javalang.ParamSigs(desc)
	m.adjust(slots(ret) - args)
}

// NewLabel makes a branch target to Mark later.
func (m *Code) NewLabel() *Label {
	l := &Label{pc: -1, stack: -1}
	m.labels = append(m.labels, l)
	return l
}

// Jump emits ifeq, ifne or goto to l.
func (m *Code) Jump(op byte, l *Label) {
	switch op {
	case Ifeq, Ifne:
		m.adjust(-1)
	case Goto:
	default:
		m.fail("opcode %#x is not a branch", op)
		return
	}
	m.join(l)
	l.uses = append(l.uses, len(m.buf))
	m.buf = append(m.buf, op, 0, 0)
	if op == Goto {
		m.unreachable = true
	}
}

// Pos is the label's offset in the code, -1 until placed.
func (l *Label) Pos() int { return l.pc }

// Here returns a label at the current position, to delimit the range an
// exception handler covers (it is no branch target).
func (m *Code) Here() *Label {
	return &Label{pc: len(m.buf), stack: -1}
}

// Handler makes target the handler of exceptions of class (an internal
// name; "" for any) thrown from start up to end (labels of Here).
// An empty range has no handler.
func (m *Code) Handler(start, end, target *Label, class string) {
	if start.pc >= end.pc {
		return
	}
	var i uint16
	if class != "" {
		i = m.c.pool.class(class)
	}
	m.handlers = append(m.handlers, handler{start, end, target, i})
}

// MarkHandler places target, an exception handler, here: the stack holds
// the exception, whatever came before.
func (m *Code) MarkHandler(target *Label) {
	if target.pc >= 0 {
		m.fail("label marked twice")
		return
	}
	target.pc, target.stack = len(m.buf), 1
	m.stack, m.unreachable = 1, false
	m.maxStack = max(m.maxStack, 1)
}

// Mark places l at the current position.
func (m *Code) Mark(l *Label) {
	if l.pc >= 0 {
		m.fail("label marked twice")
		return
	}
	l.pc = len(m.buf)
	if m.unreachable {
		if l.stack < 0 {
			m.fail("label reached only by falling off a goto or return")
			return
		}
		m.stack = l.stack
		m.unreachable = false
		return
	}
	m.join(l)
}

// join records the stack depth at l, which every path must agree on.
func (m *Code) join(l *Label) {
	if l.stack >= 0 && l.stack != m.stack {
		m.fail("operand stack %d at a branch target reached with %d", l.stack, m.stack)
	}
	l.stack = m.stack
}

func (m *Code) finish() error {
	for _, h := range m.handlers {
		if h.target.pc < 0 {
			return errors.New("classgen: an exception handler never marked")
		}
	}
	for _, l := range m.labels {
		if l.pc < 0 && len(l.uses) > 0 {
			return errors.New("classgen: a branch targets a label never marked")
		}
		for _, at := range l.uses {
			off := l.pc - at
			if off < math.MinInt16 || off > math.MaxInt16 {
				return errors.New("classgen: method too large for a 16-bit branch")
			}
			m.buf[at+1], m.buf[at+2] = byte(uint16(off)>>8), byte(off)
		}
	}
	if len(m.buf) == 0 || len(m.buf) > 0xFFFF {
		return fmt.Errorf("classgen: method code of %d bytes", len(m.buf))
	}
	if !m.unreachable {
		return errors.New("classgen: a method's code falls off its end")
	}
	return nil
}

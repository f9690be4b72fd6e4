package classfile

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
)

// opcodes names the JVM instructions 0x00–0xc9 (JVMS 6.5).
var opcodes = strings.Fields(`nop aconst_null iconst_m1 iconst_0 iconst_1 iconst_2 iconst_3 iconst_4 iconst_5
lconst_0 lconst_1 fconst_0 fconst_1 fconst_2 dconst_0 dconst_1 bipush sipush ldc ldc_w ldc2_w
iload lload fload dload aload iload_0 iload_1 iload_2 iload_3 lload_0 lload_1 lload_2 lload_3
fload_0 fload_1 fload_2 fload_3 dload_0 dload_1 dload_2 dload_3 aload_0 aload_1 aload_2 aload_3
iaload laload faload daload aaload baload caload saload istore lstore fstore dstore astore
istore_0 istore_1 istore_2 istore_3 lstore_0 lstore_1 lstore_2 lstore_3 fstore_0 fstore_1 fstore_2 fstore_3
dstore_0 dstore_1 dstore_2 dstore_3 astore_0 astore_1 astore_2 astore_3
iastore lastore fastore dastore aastore bastore castore sastore pop pop2 dup dup_x1 dup_x2 dup2 dup2_x1 dup2_x2 swap
iadd ladd fadd dadd isub lsub fsub dsub imul lmul fmul dmul idiv ldiv fdiv ddiv irem lrem frem drem
ineg lneg fneg dneg ishl lshl ishr lshr iushr lushr iand land ior lor ixor lxor iinc
i2l i2f i2d l2i l2f l2d f2i f2l f2d d2i d2l d2f i2b i2c i2s lcmp fcmpl fcmpg dcmpl dcmpg
ifeq ifne iflt ifge ifgt ifle if_icmpeq if_icmpne if_icmplt if_icmpge if_icmpgt if_icmple if_acmpeq if_acmpne
goto jsr ret tableswitch lookupswitch ireturn lreturn freturn dreturn areturn return
getstatic putstatic getfield putfield invokevirtual invokespecial invokestatic invokeinterface invokedynamic
new newarray anewarray arraylength athrow checkcast instanceof monitorenter monitorexit wide multianewarray
ifnull ifnonnull goto_w jsr_w`)

// Operand kinds.
const (
	opNone   = iota
	opByte   // signed byte immediate
	opShort  // signed short immediate
	opLocal  // local variable index (1 byte)
	opCP1    // constant pool index, 1 byte
	opCP2    // constant pool index, 2 bytes
	opBr2    // branch offset, 2 bytes
	opBr4    // branch offset, 4 bytes
	opIinc   // local index, signed byte
	opIface  // cp index, count, 0
	opIndy   // cp index, 0, 0
	opAtype  // newarray type
	opMulti  // cp index, dimensions
	opSwitch // tableswitch / lookupswitch
	opWide
)

var operands = func() [256]byte {
	var k [256]byte
	set := func(kind byte, ops ...int) {
		for _, o := range ops {
			k[o] = kind
		}
	}
	set(opByte, 0x10)
	set(opShort, 0x11)
	set(opCP1, 0x12)
	set(opCP2, 0x13, 0x14, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xbb, 0xbd, 0xc0, 0xc1)
	set(opLocal, 0x15, 0x16, 0x17, 0x18, 0x19, 0x36, 0x37, 0x38, 0x39, 0x3a, 0xa9)
	set(opIinc, 0x84)
	for o := 0x99; o <= 0xa8; o++ {
		set(opBr2, o)
	}
	set(opBr2, 0xc6, 0xc7)
	set(opBr4, 0xc8, 0xc9)
	set(opSwitch, 0xaa, 0xab)
	set(opIface, 0xb9)
	set(opIndy, 0xba)
	set(opAtype, 0xbc)
	set(opMulti, 0xc5)
	set(opWide, 0xc4)
	return k
}()

var atypes = map[byte]string{4: "boolean", 5: "char", 6: "float", 7: "double", 8: "byte", 9: "short", 10: "int", 11: "long"}

// Instruction is one decoded instruction.
type Instruction struct {
	Offset   int
	Op       byte
	Name     string
	Operands string  // rendered operands, members resolved
	Member   *Member // the member a field or invoke instruction names
}

// IsInvoke reports whether the instruction calls a method (invokedynamic
// excluded: it calls a bootstrap-made target, not a named method).
func (in Instruction) IsInvoke() bool { return in.Op >= 0xb6 && in.Op <= 0xb9 }

func (in Instruction) String() string {
	if in.Operands == "" {
		return fmt.Sprintf("%5d: %s", in.Offset, in.Name)
	}
	return fmt.Sprintf("%5d: %-15s %s", in.Offset, in.Name, in.Operands)
}

// Disassemble decodes a method's bytecodes; pool resolves constant pool
// operands (nil shows indexes). Malformed code ends the listing with an
// error.
func Disassemble(code []byte, pool *Pool) ([]Instruction, error) {
	var out []Instruction
	for pc := 0; pc < len(code); {
		in, n, err := decode(code, pc, pool)
		if err != nil {
			return out, fmt.Errorf("bytecode at %d: %w", pc, err)
		}
		out = append(out, in)
		pc += n
	}
	return out, nil
}

func decode(code []byte, pc int, pool *Pool) (Instruction, int, error) {
	op := code[pc]
	if int(op) >= len(opcodes) {
		return Instruction{}, 0, fmt.Errorf("unknown opcode 0x%02x", op)
	}
	in := Instruction{Offset: pc, Op: op, Name: opcodes[op]}
	need := func(n int) error {
		if pc+1+n > len(code) {
			return ErrTruncated
		}
		return nil
	}
	u16 := func(at int) uint16 { return binary.BigEndian.Uint16(code[at:]) }
	i32 := func(at int) int32 { return int32(binary.BigEndian.Uint32(code[at:])) }
	cp := func(i uint16) string {
		if pool == nil {
			return "#" + strconv.Itoa(int(i))
		}
		if m, ok := pool.Member(i); ok {
			in.Member = &m
		}
		return pool.Describe(i)
	}
	switch operands[op] {
	case opNone:
		return in, 1, nil
	case opByte, opLocal, opCP1, opAtype:
		if err := need(1); err != nil {
			return in, 0, err
		}
		b := code[pc+1]
		switch operands[op] {
		case opByte:
			in.Operands = strconv.Itoa(int(int8(b)))
		case opLocal:
			in.Operands = strconv.Itoa(int(b))
		case opCP1:
			in.Operands = cp(uint16(b))
		default:
			in.Operands = atypes[b]
		}
		return in, 2, nil
	case opShort, opCP2, opBr2, opIinc:
		if err := need(2); err != nil {
			return in, 0, err
		}
		switch operands[op] {
		case opShort:
			in.Operands = strconv.Itoa(int(int16(u16(pc + 1))))
		case opCP2:
			in.Operands = cp(u16(pc + 1))
		case opBr2:
			in.Operands = strconv.Itoa(pc + int(int16(u16(pc+1))))
		default:
			in.Operands = fmt.Sprintf("%d, %d", code[pc+1], int8(code[pc+2]))
		}
		return in, 3, nil
	case opMulti:
		if err := need(3); err != nil {
			return in, 0, err
		}
		in.Operands = fmt.Sprintf("%s, %d", cp(u16(pc+1)), code[pc+3])
		return in, 4, nil
	case opBr4, opIface, opIndy:
		if err := need(4); err != nil {
			return in, 0, err
		}
		switch operands[op] {
		case opBr4:
			in.Operands = strconv.Itoa(pc + int(i32(pc+1)))
		case opIface:
			in.Operands = fmt.Sprintf("%s, %d", cp(u16(pc+1)), code[pc+3])
		default:
			in.Operands = cp(u16(pc + 1))
		}
		return in, 5, nil
	case opWide:
		if err := need(3); err != nil {
			return in, 0, err
		}
		inner := code[pc+1]
		if int(inner) >= len(opcodes) || operands[inner] != opLocal && inner != 0x84 {
			return in, 0, fmt.Errorf("wide %#x is not a local variable instruction", inner)
		}
		if inner == 0x84 {
			if err := need(5); err != nil {
				return in, 0, err
			}
			in.Operands = fmt.Sprintf("iinc %d, %d", u16(pc+2), int16(u16(pc+4)))
			return in, 6, nil
		}
		in.Operands = fmt.Sprintf("%s %d", opcodes[inner], u16(pc+2))
		return in, 4, nil
	case opSwitch:
		base := pc
		at := (pc + 4) &^ 3 // operands start at a 4-byte boundary
		if at+12 > len(code) {
			return in, 0, ErrTruncated
		}
		def := base + int(i32(at))
		var b strings.Builder
		if op == 0xaa { // tableswitch
			lo, hi := i32(at+4), i32(at+8)
			if hi < lo || int64(hi)-int64(lo) > int64(len(code)) {
				return in, 0, fmt.Errorf("tableswitch bounds %d..%d", lo, hi)
			}
			n := int(hi-lo) + 1
			at += 12
			if at+4*n > len(code) {
				return in, 0, ErrTruncated
			}
			for i := 0; i < n; i++ {
				fmt.Fprintf(&b, "%d: %d, ", int(lo)+i, base+int(i32(at+4*i)))
			}
			at += 4 * n
		} else { // lookupswitch
			n := int(i32(at + 4))
			at += 8
			if n < 0 || at+8*n > len(code) {
				return in, 0, ErrTruncated
			}
			for i := 0; i < n; i++ {
				fmt.Fprintf(&b, "%d: %d, ", i32(at+8*i), base+int(i32(at+8*i+4)))
			}
			at += 8 * n
		}
		fmt.Fprintf(&b, "default: %d", def)
		in.Operands = "{ " + b.String() + " }"
		return in, at - pc, nil
	}
	return in, 0, fmt.Errorf("opcode 0x%02x has no operand layout", op)
}

package classfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf16"
)

// Constant pool tags (JVMS 4.4).
const (
	TagUtf8               = 1
	TagInteger            = 3
	TagFloat              = 4
	TagLong               = 5
	TagDouble             = 6
	TagClass              = 7
	TagString             = 8
	TagFieldref           = 9
	TagMethodref          = 10
	TagInterfaceMethodref = 11
	TagNameAndType        = 12
	TagMethodHandle       = 15
	TagMethodType         = 16
	TagDynamic            = 17
	TagInvokeDynamic      = 18
	TagModule             = 19
	TagPackage            = 20
)

// entrySizes is the size of each tag's payload after the tag byte (Utf8 is
// variable: a 2-byte length then the bytes).
var entrySizes = map[byte]int{
	TagInteger: 4, TagFloat: 4, TagLong: 8, TagDouble: 8, TagClass: 2, TagString: 2,
	TagFieldref: 4, TagMethodref: 4, TagInterfaceMethodref: 4, TagNameAndType: 4,
	TagMethodHandle: 3, TagMethodType: 2, TagDynamic: 4, TagInvokeDynamic: 4, TagModule: 2, TagPackage: 2,
}

// Entry is one constant pool entry.
type Entry struct {
	Tag  byte
	A, B uint16 // index operands (class/name/descriptor/bootstrap indexes)
	Num  uint64 // raw bits of Integer, Float, Long, Double; the kind of a MethodHandle
	Str  string // Utf8 contents
}

// Pool is a decoded constant pool; entry 0 and the slots after Long and
// Double entries are empty.
type Pool struct {
	Entries []Entry
}

// ErrTruncated is wrapped by errors for input that ends early.
var ErrTruncated = errors.New("truncated")

// ParsePool decodes count-1 entries (count as the class file's
// constant_pool_count) from data, returning the pool and the bytes used.
func ParsePool(count int, data []byte) (*Pool, int, error) {
	if count < 1 || count > 65535 {
		return nil, 0, fmt.Errorf("constant pool count %d out of range", count)
	}
	p := &Pool{Entries: make([]Entry, count)}
	off := 0
	for i := 1; i < count; i++ {
		if off >= len(data) {
			return nil, 0, fmt.Errorf("constant pool entry %d: %w", i, ErrTruncated)
		}
		tag := data[off]
		off++
		e := Entry{Tag: tag}
		if tag == TagUtf8 {
			if off+2 > len(data) {
				return nil, 0, fmt.Errorf("constant pool entry %d: %w", i, ErrTruncated)
			}
			n := int(binary.BigEndian.Uint16(data[off:]))
			off += 2
			if off+n > len(data) {
				return nil, 0, fmt.Errorf("constant pool entry %d: %w", i, ErrTruncated)
			}
			e.Str = decodeModifiedUTF8(data[off : off+n])
			off += n
			p.Entries[i] = e
			continue
		}
		size, ok := entrySizes[tag]
		if !ok {
			return nil, 0, fmt.Errorf("constant pool entry %d: unknown tag %d", i, tag)
		}
		if off+size > len(data) {
			return nil, 0, fmt.Errorf("constant pool entry %d: %w", i, ErrTruncated)
		}
		b := data[off : off+size]
		switch size {
		case 2:
			e.A = binary.BigEndian.Uint16(b)
		case 3:
			e.Num, e.A = uint64(b[0]), binary.BigEndian.Uint16(b[1:])
		case 4:
			e.A, e.B = binary.BigEndian.Uint16(b), binary.BigEndian.Uint16(b[2:])
			e.Num = uint64(binary.BigEndian.Uint32(b))
		case 8:
			e.Num = binary.BigEndian.Uint64(b)
		}
		off += size
		p.Entries[i] = e
		if tag == TagLong || tag == TagDouble {
			i++ // takes two slots
		}
	}
	return p, off, nil
}

// decodeModifiedUTF8 decodes the class file's modified UTF-8 (surrogate
// pairs encoded separately, NUL as two bytes).
func decodeModifiedUTF8(b []byte) string {
	var units []uint16
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c < 0x80:
			units = append(units, uint16(c))
			i++
		case c&0xE0 == 0xC0 && i+1 < len(b):
			units = append(units, uint16(c&0x1F)<<6|uint16(b[i+1]&0x3F))
			i += 2
		case c&0xF0 == 0xE0 && i+2 < len(b):
			units = append(units, uint16(c&0x0F)<<12|uint16(b[i+1]&0x3F)<<6|uint16(b[i+2]&0x3F))
			i += 3
		default:
			units = append(units, 0xFFFD)
			i++
		}
	}
	return string(utf16.Decode(units))
}

func (p *Pool) entry(i uint16, tags ...byte) (Entry, bool) {
	if p == nil || int(i) <= 0 || int(i) >= len(p.Entries) {
		return Entry{}, false
	}
	e := p.Entries[i]
	for _, t := range tags {
		if e.Tag == t {
			return e, true
		}
	}
	return Entry{}, false
}

// UTF8 is the string of a Utf8 entry.
func (p *Pool) UTF8(i uint16) string {
	e, _ := p.entry(i, TagUtf8)
	return e.Str
}

// Class is the internal name of a Class entry ("java/lang/String").
func (p *Pool) Class(i uint16) string {
	e, ok := p.entry(i, TagClass)
	if !ok {
		return ""
	}
	return p.UTF8(e.A)
}

// Member is a field or method reference: the class's internal name, the
// member's name and its descriptor.
type Member struct {
	Class, Name, Descriptor string
	Interface               bool // an InterfaceMethodref
}

// Member resolves a Fieldref, Methodref or InterfaceMethodref entry; for an
// InvokeDynamic or Dynamic entry Class is empty.
func (p *Pool) Member(i uint16) (Member, bool) {
	e, ok := p.entry(i, TagFieldref, TagMethodref, TagInterfaceMethodref, TagInvokeDynamic, TagDynamic)
	if !ok {
		return Member{}, false
	}
	nt, ok := p.entry(e.B, TagNameAndType)
	if !ok {
		return Member{}, false
	}
	m := Member{Name: p.UTF8(nt.A), Descriptor: p.UTF8(nt.B), Interface: e.Tag == TagInterfaceMethodref}
	if e.Tag != TagInvokeDynamic && e.Tag != TagDynamic {
		m.Class = p.Class(e.A)
	}
	return m, true
}

// Describe renders an entry for a disassembly: a member as
// "java/io/PrintStream.println:(Ljava/lang/String;)V", a string quoted, a
// number as Java writes it, a class by name.
func (p *Pool) Describe(i uint16) string {
	e, ok := p.entry(i, TagInteger, TagFloat, TagLong, TagDouble, TagClass, TagString, TagFieldref, TagMethodref,
		TagInterfaceMethodref, TagMethodType, TagMethodHandle, TagDynamic, TagInvokeDynamic, TagModule, TagPackage)
	if !ok {
		return "#" + strconv.Itoa(int(i))
	}
	switch e.Tag {
	case TagInteger:
		return strconv.Itoa(int(int32(uint32(e.Num))))
	case TagFloat:
		return strconv.FormatFloat(float64(math.Float32frombits(uint32(e.Num))), 'g', -1, 32) + "f"
	case TagLong:
		return strconv.FormatInt(int64(e.Num), 10) + "L"
	case TagDouble:
		return strconv.FormatFloat(math.Float64frombits(e.Num), 'g', -1, 64)
	case TagClass:
		return p.Class(i)
	case TagString:
		return strconv.Quote(p.UTF8(e.A))
	case TagMethodType:
		return p.UTF8(e.A)
	case TagMethodHandle:
		return "MethodHandle " + p.Describe(e.A)
	case TagModule, TagPackage:
		return p.UTF8(e.A)
	}
	m, ok := p.Member(i)
	if !ok {
		return "#" + strconv.Itoa(int(i))
	}
	if m.Class == "" {
		return m.Name + ":" + m.Descriptor
	}
	return m.Class + "." + m.Name + ":" + m.Descriptor
}

// ThisClass returns the internal name of the class a class file defines
// ("com/example/App").
func ThisClass(b []byte) (string, error) {
	if len(b) < 10 || binary.BigEndian.Uint32(b) != 0xCAFEBABE {
		return "", errors.New("not a class file (no CAFEBABE magic)")
	}
	count := int(binary.BigEndian.Uint16(b[8:]))
	p, n, err := ParsePool(count, b[10:])
	if err != nil {
		return "", err
	}
	rest := b[10+n:]
	if len(rest) < 4 {
		return "", fmt.Errorf("class header: %w", ErrTruncated)
	}
	name := p.Class(binary.BigEndian.Uint16(rest[2:]))
	if name == "" {
		return "", errors.New("this_class is not a Class entry")
	}
	return name, nil
}

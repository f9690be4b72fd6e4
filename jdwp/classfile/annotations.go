package classfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Annotation is one annotation of a class file (JVMS 4.7.16): its type's
// descriptor ("Lkotlin/Metadata;") and its elements by name.
type Annotation struct {
	Type     string
	Elements map[string]ElementValue
}

// ElementValue is one element value of an annotation (JVMS 4.7.16.1). Tag
// is the element's tag ('I', 's', '[', 'e', 'c', '@', …); Int holds the
// integral constants (B C I J S Z), Float the floating ones (D F), Str a
// string, a class's descriptor ('c') or an enum's constant name ('e', its
// type in EnumType); Array the elements of an array, Nested an
// annotation.
type ElementValue struct {
	Tag      byte
	Int      int64
	Float    float64
	Str      string
	EnumType string
	Array    []ElementValue
	Nested   *Annotation
}

// Ints returns an array of integral constants (nil for another value).
func (v ElementValue) Ints() []int {
	if v.Tag != '[' {
		return nil
	}
	out := make([]int, 0, len(v.Array))
	for _, e := range v.Array {
		out = append(out, int(e.Int))
	}
	return out
}

// Strings returns an array of strings (nil for another value).
func (v ElementValue) Strings() []string {
	if v.Tag != '[' {
		return nil
	}
	out := make([]string, 0, len(v.Array))
	for _, e := range v.Array {
		out = append(out, e.Str)
	}
	return out
}

// maxElementDepth bounds how deep element values nest (arrays of
// annotations of arrays…), so crafted input cannot exhaust the stack.
const maxElementDepth = 32

// ClassAnnotations returns the annotations of a class file's
// RuntimeVisibleAnnotations attribute (the class's own, not its members'),
// none when it has none.
func ClassAnnotations(b []byte) ([]Annotation, error) {
	if len(b) < 10 || binary.BigEndian.Uint32(b) != 0xCAFEBABE {
		return nil, errors.New("not a class file (no CAFEBABE magic)")
	}
	p, n, err := ParsePool(int(binary.BigEndian.Uint16(b[8:])), b[10:])
	if err != nil {
		return nil, err
	}
	r := &reader{b: b[10+n:]}
	r.skip(6) // access, this_class, super_class
	r.skip(2 * int(r.u2()))
	for range 2 { // fields, then methods
		for range int(r.u2()) {
			r.skip(6)
			for range int(r.u2()) {
				r.skip(2)
				r.skip(int(r.u4()))
			}
		}
	}
	var out []Annotation
	for range int(r.u2()) {
		name, size := p.UTF8(r.u2()), int(r.u4())
		if r.err != nil || size > len(r.b) {
			return nil, fmt.Errorf("class attributes: %w", ErrTruncated)
		}
		body := &reader{b: r.b[:size]}
		r.skip(size)
		if name != "RuntimeVisibleAnnotations" {
			continue
		}
		for range int(body.u2()) {
			a := body.annotation(p, 0)
			if body.err != nil {
				return nil, fmt.Errorf("RuntimeVisibleAnnotations: %w", body.err)
			}
			out = append(out, a)
		}
	}
	if r.err != nil {
		return nil, fmt.Errorf("class file: %w", r.err)
	}
	return out, nil
}

// reader reads big-endian items, remembering the first failure.
type reader struct {
	b   []byte
	err error
}

func (r *reader) need(n int) bool {
	if r.err != nil {
		return false
	}
	if n < 0 || n > len(r.b) {
		r.err = ErrTruncated
		return false
	}
	return true
}

func (r *reader) skip(n int) {
	if r.need(n) {
		r.b = r.b[n:]
	}
}

func (r *reader) u1() byte {
	if !r.need(1) {
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *reader) u2() uint16 {
	if !r.need(2) {
		return 0
	}
	v := binary.BigEndian.Uint16(r.b)
	r.b = r.b[2:]
	return v
}

func (r *reader) u4() uint32 {
	if !r.need(4) {
		return 0
	}
	v := binary.BigEndian.Uint32(r.b)
	r.b = r.b[4:]
	return v
}

func (r *reader) annotation(p *Pool, depth int) Annotation {
	a := Annotation{Type: p.UTF8(r.u2()), Elements: map[string]ElementValue{}}
	for range int(r.u2()) {
		if r.err != nil {
			break
		}
		name := p.UTF8(r.u2())
		a.Elements[name] = r.element(p, depth)
	}
	return a
}

func (r *reader) element(p *Pool, depth int) ElementValue {
	if depth > maxElementDepth {
		r.err = errors.New("element values nest too deep")
		return ElementValue{}
	}
	v := ElementValue{Tag: r.u1()}
	switch v.Tag {
	case 'B', 'C', 'I', 'S', 'Z':
		e, _ := p.entry(r.u2(), TagInteger)
		v.Int = int64(int32(uint32(e.Num)))
	case 'J':
		e, _ := p.entry(r.u2(), TagLong)
		v.Int = int64(e.Num)
	case 'F':
		e, _ := p.entry(r.u2(), TagFloat)
		v.Float = float64(math.Float32frombits(uint32(e.Num)))
	case 'D':
		e, _ := p.entry(r.u2(), TagDouble)
		v.Float = math.Float64frombits(e.Num)
	case 's', 'c':
		v.Str = p.UTF8(r.u2())
	case 'e':
		v.EnumType, v.Str = p.UTF8(r.u2()), p.UTF8(r.u2())
	case '@':
		a := r.annotation(p, depth+1)
		v.Nested = &a
	case '[':
		n := int(r.u2())
		for i := 0; i < n && r.err == nil; i++ {
			v.Array = append(v.Array, r.element(p, depth+1))
		}
	default:
		if r.err == nil {
			r.err = fmt.Errorf("unknown element value tag %q", v.Tag)
		}
	}
	return v
}

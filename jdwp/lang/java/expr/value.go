package expr

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
)

// Kind is the Java type category of a Value.
type Kind uint8

const (
	KindVoid Kind = iota
	KindBoolean
	KindByte
	KindChar
	KindShort
	KindInt
	KindLong
	KindFloat
	KindDouble
	KindNull
	KindString // a java.lang.String: a literal (Str) or a VM object (Ref)
	KindObject // any other reference, arrays included
)

var kindNames = [...]string{"void", "boolean", "byte", "char", "short", "int", "long", "float", "double", "null", "String", "Object"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// IsNumeric reports whether k is a numeric primitive (char included).
func (k Kind) IsNumeric() bool { return k >= KindByte && k <= KindDouble }

// IsIntegral reports whether k is byte, char, short, int or long.
func (k Kind) IsIntegral() bool { return k >= KindByte && k <= KindLong }

// IsRef reports whether k is a reference kind (null, String, Object).
func (k Kind) IsRef() bool { return k >= KindNull }

// Value is a Java value: a primitive, null, or a reference to a VM object.
type Value struct {
	Kind Kind
	// I holds boolean (0/1), byte, char, short, int and long values, sign-
	// or zero-extended as Java does.
	I int64
	// F holds float and double values (a float is exactly representable).
	F float64
	// Str is a string literal's contents; for a string in the VM it is set
	// once known (Known).
	Str   string
	Known bool
	// Ref is the VM object id of a String or Object (0 for a literal).
	Ref uint64
	// Type is the JNI signature of a reference's runtime type, e.g.
	// "Ljava/lang/Integer;" or "[I", when the Env knows it.
	Type string
	// Fn is set on a lambda or method reference argument not yet made
	// into an object: the parameter it is passed to gives its interface.
	Fn *Func
}

// Constructors.
func BoolValue(b bool) Value {
	if b {
		return Value{Kind: KindBoolean, I: 1}
	}
	return Value{Kind: KindBoolean}
}
func ByteValue(v int8) Value     { return Value{Kind: KindByte, I: int64(v)} }
func CharValue(v uint16) Value   { return Value{Kind: KindChar, I: int64(v)} }
func ShortValue(v int16) Value   { return Value{Kind: KindShort, I: int64(v)} }
func IntValue(v int32) Value     { return Value{Kind: KindInt, I: int64(v)} }
func LongValue(v int64) Value    { return Value{Kind: KindLong, I: v} }
func FloatValue(v float32) Value { return Value{Kind: KindFloat, F: float64(v)} }
func DoubleValue(v float64) Value {
	return Value{Kind: KindDouble, F: v}
}

// StringLit is a string whose contents are known (a literal or a computed string).
func StringLit(s string) Value { return Value{Kind: KindString, Str: s, Known: true} }

// ObjectRef is a reference to a VM object of type sig (a JNI signature).
// A java.lang.String reference gets KindString.
func ObjectRef(ref uint64, sig string) Value {
	if ref == 0 {
		return Null
	}
	if sig == "Ljava/lang/String;" {
		return Value{Kind: KindString, Ref: ref, Type: sig}
	}
	return Value{Kind: KindObject, Ref: ref, Type: sig}
}

// Null is the null reference.
var Null = Value{Kind: KindNull}

// Bool returns a boolean value's truth.
func (v Value) Bool() bool { return v.I != 0 }

// Float returns a numeric value as float64.
func (v Value) Float() float64 {
	if v.Kind == KindFloat || v.Kind == KindDouble {
		return v.F
	}
	return float64(v.I)
}

// Int returns a numeric value as int64, truncating floats as Java's (long) cast does.
func (v Value) Int() int64 {
	if v.Kind == KindFloat || v.Kind == KindDouble {
		return f2l(v.F, 64)
	}
	return v.I
}

// TypeName is the Java name of v's type: "int", "String", "java.util.List", "int[]".
func (v Value) TypeName() string {
	if v.Kind.IsRef() && v.Type != "" {
		return javalang.TypeName(v.Type)
	}
	return v.Kind.String()
}

// Literal renders a primitive, null or known string as Java source.
func (v Value) Literal() string {
	switch v.Kind {
	case KindBoolean:
		return strconv.FormatBool(v.Bool())
	case KindByte, KindShort, KindInt:
		return strconv.FormatInt(v.I, 10)
	case KindLong:
		return strconv.FormatInt(v.I, 10) + "L"
	case KindChar:
		return "'" + javaEscape(string(rune(v.I)), '\'') + "'"
	case KindFloat:
		return floatLiteral(v.F, 32) + "f"
	case KindDouble:
		return floatLiteral(v.F, 64)
	case KindNull:
		return "null"
	case KindString:
		if v.Known {
			return `"` + javaEscape(v.Str, '"') + `"`
		}
	}
	return v.TypeName() + "@" + strconv.FormatUint(v.Ref, 16)
}

func floatLiteral(f float64, bits int) string {
	switch {
	case math.IsInf(f, 1):
		return "1e999"
	case math.IsInf(f, -1):
		return "(-1e999)"
	case math.IsNaN(f):
		return "(0.0 / 0.0)"
	}
	s := strconv.FormatFloat(f, 'g', -1, bits)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	return s
}

// javaEscape escapes quote, backslash and control characters the way a Java
// literal needs them.
func javaEscape(s string, quote byte) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == rune(quote) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f || r == utf8.RuneError || r <= 0xFFFF && !unicode.IsPrint(r) && !unicode.IsSpace(r):
			b.WriteString(`\u`)
			h := strconv.FormatUint(uint64(r), 16)
			b.WriteString(strings.Repeat("0", 4-len(h)) + h)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// JavaString formats a primitive as Java's String.valueOf does.
func (v Value) JavaString() string {
	switch v.Kind {
	case KindChar:
		return string(rune(v.I))
	case KindFloat:
		return javalang.Float(v.F, 32)
	case KindDouble:
		return javalang.Float(v.F, 64)
	case KindNull:
		return "null"
	case KindString:
		if v.Known {
			return v.Str
		}
	}
	if v.Kind.IsRef() {
		return v.Literal()
	}
	return strings.TrimSuffix(v.Literal(), "L")
}

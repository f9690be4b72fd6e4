package javalang

import (
	"slices"
	"strings"
	"testing"
)

func TestTypeName(t *testing.T) {
	for sig, want := range map[string]string{
		"I": "int", "Z": "boolean", "B": "byte", "C": "char", "S": "short", "J": "long", "F": "float", "D": "double",
		"V": "void", "Ljava/lang/String;": "java.lang.String", "[[J": "long[][]",
		"[Ljava/util/Map$Entry;": "java.util.Map$Entry[]", "LTop;": "Top", "Q": "Q", "": "", "[": "[]",
		"Lcom/x/Foo$$Lambda$14.0x0000000800c03000;": "com.x.Foo$$Lambda$14.0x0000000800c03000",
	} {
		if got := TypeName(sig); got != want {
			t.Errorf("TypeName(%q) = %q, want %q", sig, got, want)
		}
	}
}

func TestSimpleTypeName(t *testing.T) {
	for sig, want := range map[string]string{
		"I": "int", "V": "void", "Ljava/lang/String;": "String", "[Ljava/util/Map$Entry;": "Map$Entry[]",
		"Ljava/util/HashMap$Node;": "HashMap$Node", "LTop;": "Top", "Lcom/x/Outer$Inner$Deep;": "Outer$Inner$Deep",
		"[[I": "int[][]", "[[Ljava/lang/Object;": "Object[][]",
		"Lcom/x/Foo$$Lambda$14.0x0000000800c03000;": "Foo$$Lambda$14.0x0000000800c03000",
	} {
		if got := SimpleTypeName(sig); got != want {
			t.Errorf("SimpleTypeName(%q) = %q, want %q", sig, got, want)
		}
	}
}

func TestSignature(t *testing.T) {
	for name, want := range map[string]string{
		"int": "I", "void": "V", "boolean[]": "[Z", "java.lang.String": "Ljava/lang/String;",
		"java.util.Map$Entry[][]": "[[Ljava/util/Map$Entry;", "int []": "[I", " Top ": "LTop;",
	} {
		if got := Signature(name); got != want {
			t.Errorf("Signature(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestClassName(t *testing.T) {
	for in, want := range map[string]string{
		"java/lang/String": "java.lang.String", "Ljava/lang/String;": "java.lang.String", "[I": "int[]",
		"[[Ljava/lang/Object;": "java.lang.Object[][]", "[[Lfoo/Bar;": "foo.Bar[][]", "java.lang.String[]": "java.lang.String[]",
		"[Z": "boolean[]", "Foo$Bar": "Foo$Bar", "I": "I", "": "",
	} {
		if got := ClassName(in); got != want {
			t.Errorf("ClassName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestInternalName(t *testing.T) {
	for sig, want := range map[string]string{"Ljava/lang/String;": "java/lang/String", "[I": "[I", "[Lfoo/Bar;": "[Lfoo/Bar;", "LTop;": "Top"} {
		if got := InternalName(sig); got != want {
			t.Errorf("InternalName(%q) = %q, want %q", sig, got, want)
		}
		if back := ClassSignature(want); back != sig {
			t.Errorf("ClassSignature(%q) = %q, want %q", want, back, sig)
		}
	}
}

func TestPrimitives(t *testing.T) {
	for _, sig := range []string{"Z", "B", "C", "S", "I", "J", "F", "D", "V"} {
		if !IsPrimitive(sig) {
			t.Errorf("IsPrimitive(%q) = false", sig)
		}
		if back, ok := PrimitiveSignature(TypeName(sig)); !ok || back != sig {
			t.Errorf("PrimitiveSignature(%q) = %q, %v; want %q", TypeName(sig), back, ok, sig)
		}
	}
	for _, sig := range []string{"", "L", "[I", "Ljava/lang/String;", "II", "Q"} {
		if IsPrimitive(sig) {
			t.Errorf("IsPrimitive(%q) = true", sig)
		}
	}
	if dims, elem := ArrayDims("[[Lfoo;"); dims != 2 || elem != "Lfoo;" {
		t.Errorf("ArrayDims([[Lfoo;) = %d, %q", dims, elem)
	}
}

func TestParamSigs(t *testing.T) {
	for _, c := range []struct {
		desc   string
		params []string
		ret    string
	}{
		{"(ILjava/lang/String;[J)V", []string{"I", "Ljava/lang/String;", "[J"}, "V"},
		{"()Ljava/lang/Object;", nil, "Ljava/lang/Object;"},
		{"([[Lfoo/Bar;Z)[I", []string{"[[Lfoo/Bar;", "Z"}, "[I"},
		{"(I", []string{"I"}, ""},
		{"(Ljava/lang/String", nil, ""},
		{"(Lbroken", nil, ""},
		{"(IQ)V", []string{"I"}, ""},
		{"(L;)V", nil, ""},
		{"(V)V", nil, ""},
		{"I", nil, ""},
		{"([", nil, ""},
	} {
		params, ret := ParamSigs(c.desc)
		if !slices.Equal(params, c.params) || ret != c.ret {
			t.Errorf("ParamSigs(%q) = %q, %q; want %q, %q", c.desc, params, ret, c.params, c.ret)
		}
	}
}

// validSig reports whether sig is a field signature whose class names are
// well-formed internal names without '.' (JVMS 4.2.1, 4.3.2): the signatures
// whose Java names convert back to them.
func validSig(sig string) bool {
	dims, base := ArrayDims(sig)
	if dims > 255 {
		return false
	}
	if IsPrimitive(base) {
		return base != "V" || dims == 0
	}
	if len(base) < 3 || base[0] != 'L' || base[len(base)-1] != ';' {
		return false
	}
	for _, part := range strings.Split(base[1:len(base)-1], "/") {
		if part == "" || strings.ContainsAny(part, ".;[ \t\n\v\f\r\u0085\u00a0") || strings.Contains(part, "[]") {
			return false
		}
	}
	return true
}

// FuzzSignatureRoundTrip converts any input every way (nothing may panic)
// and, for a well-formed signature, checks that its Java name and internal
// name convert back to it and that the helpers agree with each other.
func FuzzSignatureRoundTrip(f *testing.F) {
	for _, s := range []string{"I", "V", "[[J", "Ljava/lang/String;", "[Ljava/util/Map$Entry;", "LTop;", "L;", "[", "(IJ)V", "Lcom/x/Foo$$Lambda$14.0x0000000800c03000;"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sig string) {
		name, simple, class := TypeName(sig), SimpleTypeName(sig), ClassName(sig)
		_ = Signature(sig)
		_, _ = ParamSigs(sig)
		_, _ = ParamSigs("(" + sig + ")V")
		if !validSig(sig) {
			return
		}
		if back := Signature(name); back != sig {
			t.Fatalf("Signature(TypeName(%q) = %q) = %q", sig, name, back)
		}
		if !strings.HasSuffix(name, simple) {
			t.Fatalf("SimpleTypeName(%q) = %q is no suffix of TypeName %q", sig, simple, name)
		}
		if params, ret := ParamSigs("(" + sig + sig + ")" + sig); sig != "V" && (len(params) != 2 || params[0] != sig || params[1] != sig || ret != sig) {
			t.Fatalf("ParamSigs((%s%s)%s) = %q, %q", sig, sig, sig, params, ret)
		}
		if IsPrimitive(sig) {
			return
		}
		if class != name {
			t.Fatalf("ClassName(%q) = %q, TypeName %q", sig, class, name)
		}
		internal := InternalName(sig)
		if back := ClassSignature(internal); back != sig {
			t.Fatalf("ClassSignature(InternalName(%q) = %q) = %q", sig, internal, back)
		}
		if got := ClassName(internal); got != name {
			t.Fatalf("ClassName(InternalName(%q) = %q) = %q, want %q", sig, internal, got, name)
		}
	})
}

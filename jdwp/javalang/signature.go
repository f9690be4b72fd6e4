package javalang

import "strings"

// The JVM spells a type three ways, and this file converts between them; the
// rest of the project calls these and holds no conversions of its own.
//
//   - a signature (JNI's, JDWP's, a field descriptor): "I", "Ljava/lang/String;",
//     "[[J", "Ljava/util/Map$Entry;";
//   - an internal name, what class files and HPROF dumps name classes by:
//     "java/lang/String", "java/util/Map$Entry"; an array class's internal
//     name is its signature, "[I";
//   - a Java name, as Class.getName and JDI's ReferenceType.name write it, and
//     as Java source writes array and primitive types: "int",
//     "java.lang.String", "long[][]", "java.util.Map$Entry" (a nested class
//     keeps its '$': this is the binary name).
//
// A hidden class's signature carries a '.' before its address suffix
// ("Lcom/x/Foo$$Lambda$14.0x0000000800c03000;"); its Java name keeps it, as
// JDI's does, and so does not convert back to the same signature.

// primitives are the primitive signatures (and void) and their Java names.
var primitives = map[string]string{
	"Z": "boolean", "B": "byte", "C": "char", "S": "short",
	"I": "int", "J": "long", "F": "float", "D": "double", "V": "void",
}

// primitiveSigs is primitives the other way round.
var primitiveSigs = map[string]string{
	"boolean": "Z", "byte": "B", "char": "C", "short": "S",
	"int": "I", "long": "J", "float": "F", "double": "D", "void": "V",
}

// IsPrimitive reports whether sig is a primitive type's signature, or void's
// ("V").
func IsPrimitive(sig string) bool { _, ok := primitives[sig]; return ok }

// PrimitiveSignature is the signature of a primitive type's Java name
// ("int" → "I", "void" → "V"), and whether name is one.
func PrimitiveSignature(name string) (string, bool) { s, ok := primitiveSigs[name]; return s, ok }

// ArrayDims splits an array signature into its number of dimensions and its
// element type's signature: "[[J" → 2, "J"; a signature that is no array
// gives 0 and itself.
func ArrayDims(sig string) (dims int, elem string) {
	for dims < len(sig) && sig[dims] == '[' {
		dims++
	}
	return dims, sig[dims:]
}

// TypeName turns a signature into a Java name: "I" → "int",
// "Ljava/lang/String;" → "java.lang.String", "[[J" → "long[][]". What is no
// signature comes back with its array dimensions written out ("Q" → "Q").
func TypeName(sig string) string {
	dims, base := ArrayDims(sig)
	name, ok := primitives[base]
	if !ok {
		name = base
		if len(base) >= 2 && base[0] == 'L' && base[len(base)-1] == ';' {
			name = strings.ReplaceAll(base[1:len(base)-1], "/", ".")
		}
	}
	return name + strings.Repeat("[]", dims)
}

// SimpleTypeName is a signature as a Java name without the package: "int",
// "String", "Map$Entry[]", "HashMap$Node"; a hidden class keeps its address
// suffix ("Foo$$Lambda$14.0x0000000800c03000").
func SimpleTypeName(sig string) string {
	dims, base := ArrayDims(sig)
	name, ok := primitives[base]
	if !ok {
		name = strings.TrimSuffix(strings.TrimPrefix(base, "L"), ";")
		name = name[strings.LastIndexByte(name, '/')+1:]
	}
	return name + strings.Repeat("[]", dims)
}

// SimpleName is the last part of a dotted Java name: "java.util.HashMap$Node"
// → "HashMap$Node", "Outer.Inner" → "Inner".
func SimpleName(name string) string { return name[strings.LastIndexByte(name, '.')+1:] }

// Signature turns a Java name ("java.util.Map$Entry", "int[]", "long")
// into a signature ("Ljava/util/Map$Entry;", "[I", "J"). Spaces around the
// name and before "[]" are ignored ("int []").
func Signature(name string) string {
	dims := strings.Count(name, "[]")
	base := strings.TrimSpace(strings.ReplaceAll(name, "[]", ""))
	sig, ok := primitiveSigs[base]
	if !ok {
		sig = "L" + strings.ReplaceAll(base, ".", "/") + ";"
	}
	return strings.Repeat("[", dims) + sig
}

// ClassName turns a class's internal name, or a class signature, into its
// Java name: "java/util/HashMap$Node" → "java.util.HashMap$Node",
// "Ljava/lang/String;" → "java.lang.String", "[I" → "int[]",
// "[[Lfoo/Bar;" → "foo.Bar[][]". A one-letter name that is not an array is a
// class of that name ("I" is class I, not int), and a Java name comes back as
// it is.
func ClassName(name string) string {
	if strings.HasPrefix(name, "[") || len(name) >= 2 && name[0] == 'L' && name[len(name)-1] == ';' {
		return TypeName(name)
	}
	return strings.ReplaceAll(name, "/", ".")
}

// InternalName is a reference type's internal name from its signature:
// "Ljava/lang/String;" → "java/lang/String"; an array's is its signature
// ("[I" stays "[I").
func InternalName(sig string) string {
	if strings.HasPrefix(sig, "[") {
		return sig
	}
	return strings.TrimSuffix(strings.TrimPrefix(sig, "L"), ";")
}

// ClassSignature is the signature of a class's internal name:
// "java/lang/String" → "Ljava/lang/String;"; an array's internal name is its
// signature already ("[I" stays "[I").
func ClassSignature(internal string) string {
	if strings.HasPrefix(internal, "[") {
		return internal
	}
	return "L" + internal + ";"
}

// ParamSigs splits a method descriptor "(ILjava/lang/String;[J)V" into its
// parameters' signatures and its return type's signature. A malformed
// descriptor gives the parameters read before the fault and an empty return
// type.
func ParamSigs(desc string) (params []string, ret string) {
	if !strings.HasPrefix(desc, "(") {
		return nil, ""
	}
	i := 1
	for i < len(desc) && desc[i] != ')' {
		j := sigEnd(desc, i)
		if j <= i {
			return params, ""
		}
		params = append(params, desc[i:j])
		i = j
	}
	if i < len(desc) {
		ret = desc[i+1:]
	}
	return params, ret
}

// sigEnd returns the index just past the parameter signature starting at
// desc[i], or i when none starts there (a class name without its ';', an
// array without its element type, void or an unknown letter).
func sigEnd(desc string, i int) int {
	j := i
	for j < len(desc) && desc[j] == '[' {
		j++
	}
	switch {
	case j >= len(desc):
		return i
	case desc[j] == 'L':
		if k := strings.IndexByte(desc[j:], ';'); k > 1 {
			return j + k + 1
		}
		return i
	case desc[j] != 'V' && IsPrimitive(desc[j:j+1]):
		return j + 1
	}
	return i
}

package expr

import (
	"strings"
)

// Types are JNI signatures throughout: "I", "Ljava/lang/String;", "[J".

const (
	sigObject = "Ljava/lang/Object;"
	sigString = "Ljava/lang/String;"
)

// kindSigs maps primitive kinds to their signatures.
var kindSigs = map[Kind]string{
	KindBoolean: "Z", KindByte: "B", KindChar: "C", KindShort: "S",
	KindInt: "I", KindLong: "J", KindFloat: "F", KindDouble: "D", KindVoid: "V",
}

// sigKinds maps primitive signatures to their kinds.
var sigKinds = map[string]Kind{
	"Z": KindBoolean, "B": KindByte, "C": KindChar, "S": KindShort,
	"I": KindInt, "J": KindLong, "F": KindFloat, "D": KindDouble, "V": KindVoid,
}

// primitiveNames maps Java primitive type names to kinds.
var primitiveNames = map[string]Kind{
	"boolean": KindBoolean, "byte": KindByte, "char": KindChar, "short": KindShort,
	"int": KindInt, "long": KindLong, "float": KindFloat, "double": KindDouble,
}

// boxSigs maps primitive kinds to their wrapper class signatures.
var boxSigs = map[Kind]string{
	KindBoolean: "Ljava/lang/Boolean;", KindByte: "Ljava/lang/Byte;", KindChar: "Ljava/lang/Character;",
	KindShort: "Ljava/lang/Short;", KindInt: "Ljava/lang/Integer;", KindLong: "Ljava/lang/Long;",
	KindFloat: "Ljava/lang/Float;", KindDouble: "Ljava/lang/Double;",
}

// KindOfSig is the kind of a value of type sig: a primitive kind, KindString
// for java.lang.String, KindObject for other references.
func KindOfSig(sig string) Kind {
	if k, ok := sigKinds[sig]; ok {
		return k
	}
	if sig == sigString {
		return KindString
	}
	return KindObject
}

// typeSig is the JNI signature of v's type: its runtime type for references.
func typeSig(v Value) string {
	switch {
	case v.Kind == KindString:
		return sigString
	case v.Kind.IsRef():
		return v.Type
	}
	return kindSigs[v.Kind]
}

// widens reports whether a primitive of kind from converts to kind to by
// identity or widening primitive conversion (JLS 5.1.2).
func widens(from, to Kind) bool {
	if from == to {
		return true
	}
	switch from {
	case KindByte:
		return to == KindShort || to == KindInt || to == KindLong || to == KindFloat || to == KindDouble
	case KindShort, KindChar:
		return to == KindInt || to == KindLong || to == KindFloat || to == KindDouble
	case KindInt:
		return to == KindLong || to == KindFloat || to == KindDouble
	case KindLong:
		return to == KindFloat || to == KindDouble
	case KindFloat:
		return to == KindDouble
	}
	return false
}

// arrayElem is the element signature of an array signature, or "".
func arrayElem(sig string) string {
	if strings.HasPrefix(sig, "[") {
		return sig[1:]
	}
	return ""
}

// BoxSig is the wrapper class of a primitive signature ("I" → "Ljava/lang/Integer;").
func BoxSig(sig string) string { return boxSigs[sigKinds[sig]] }

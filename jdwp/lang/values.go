package lang

// ValueForms is a Language whose programs print some classes' objects in
// their own way (Kotlin: Pair as "(1, a)", a data class as
// "Order(id=1, total=9.5)"), written from the objects' fields with no code
// run in the VM. The debugger reads the fields and hands the language
// their printed values.
type ValueForms interface {
	// ValueForm returns the form of objects of the class of JNI signature
	// sig, nil when the language has none. methods are the names of the
	// methods the class declares, nil when asked by the signature alone
	// (a form that depends on them is asked again with them).
	ValueForm(sig string, methods []string) *ValueForm
}

// ValueForm is how objects of one class are written.
type ValueForm struct {
	// Fields names the instance fields the text is written from, in order;
	// when nil, the class's own first Leading instance fields are.
	Fields  []string
	Leading int
	// Text writes the object from those fields.
	Text func(fields []PrintedField) string
}

// PrintedField is a field as the program's toString prints it nested: its
// name, its text (a string without quotes, a char as itself), and the JNI
// signature of its value's runtime type ("" for a primitive or null).
type PrintedField struct {
	Name, Text, Sig string
}

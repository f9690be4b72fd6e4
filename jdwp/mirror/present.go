package mirror

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
)

// Inspector is what presentation reads of a suspended VM: *VM's methods of
// the same names, and an Invoke its owner bounds by policy. Signatures are
// JNI signatures ("Ljava/util/ArrayList;").
type Inspector interface {
	// TypeOf returns an object's runtime type signature.
	TypeOf(ctx context.Context, obj jdwp.ObjectID) (string, error)
	// Subtype reports whether type sig is assignable to sup.
	Subtype(ctx context.Context, sig, sup string) (bool, error)
	// Field reads the instance field called name of obj, searching its
	// superclasses; ok is false when there is none.
	Field(ctx context.Context, obj jdwp.ObjectID, name string) (v jdwp.Value, ok bool, err error)
	// Fields reads every instance field of obj, superclass fields last.
	Fields(ctx context.Context, obj jdwp.ObjectID) ([]NamedValue, error)
	// String reads a java.lang.String.
	String(ctx context.Context, s jdwp.ObjectID) (string, error)
	// Overrides reports whether type sig declares or inherits method
	// name+desc from a class other than java.lang.Object.
	Overrides(ctx context.Context, sig, name, desc string) (bool, error)
	// Invoke runs the instance method name+desc of obj with no arguments
	// in the stopped thread, bounded in time. It fails (and presentation
	// falls back to fields) when methods may not run there: a hover, a
	// thread not stopped by an event, a monitor another thread holds.
	Invoke(ctx context.Context, obj jdwp.ObjectID, name, desc string) (jdwp.Value, error)
	// ArrayValues reads count elements of an array from start.
	ArrayValues(ctx context.Context, arr jdwp.ObjectID, start, count int) ([]jdwp.Value, error)
	// ArrayLength reads an array's length.
	ArrayLength(ctx context.Context, arr jdwp.ObjectID) (int, error)
	// ClassName returns the Java name of the type a java.lang.Class reflects.
	ClassName(ctx context.Context, class jdwp.ObjectID) (string, error)
	// Static reads the static field called name of the loaded class of
	// signature sig; ok is false when there is no such class or field.
	Static(ctx context.Context, sig, name string) (v jdwp.Value, ok bool, err error)
	// DeclaredMethodNames lists the names of the methods the loaded class
	// of signature sig declares itself.
	DeclaredMethodNames(ctx context.Context, sig string) ([]string, error)
}

// NamedValue is a field's name and value.
type NamedValue struct {
	Name  string
	Value jdwp.Value
}

// View is how a type is shown.
type View int

const (
	Plain View = iota
	String
	Box
	Collection
	Map
	MapEntry
	Optional
	Atomic
	Builder // StringBuilder, StringBuffer
	Enum
	Record
	Class
	Thread
	Throwable
	// Formed is a class a source language shows its own way
	// (Presenter.Forms).
	Formed
)

var viewNames = [...]string{"plain", "string", "box", "collection", "map", "map entry", "optional", "atomic", "builder", "enum", "record", "class", "thread", "throwable", "language form"}

func (v View) String() string {
	if int(v) < len(viewNames) {
		return viewNames[v]
	}
	return "view(" + strconv.Itoa(int(v)) + ")"
}

// Logical reports whether the view lists elements (paged) rather than fields.
func (v View) Logical() bool { return v == Collection || v == Map }

// supertypes are tested in order; the first a type is assignable to wins.
var supertypes = []struct {
	sig  string
	view View
}{
	{"Ljava/util/Map;", Map},
	{"Ljava/util/Collection;", Collection},
	{"Ljava/util/Map$Entry;", MapEntry},
	{"Ljava/lang/Enum;", Enum},
	{"Ljava/lang/Record;", Record},
	{"Ljava/lang/Thread;", Thread},
	{"Ljava/lang/Throwable;", Throwable},
	{"Ljava/lang/AbstractStringBuilder;", Builder},
}

// exact are final JDK classes shown by their content.
var exact = map[string]View{
	"Ljava/lang/String;":                            String,
	"Ljava/lang/Class;":                             Class,
	"Ljava/util/Optional;":                          Optional,
	"Ljava/util/OptionalInt;":                       Optional,
	"Ljava/util/OptionalLong;":                      Optional,
	"Ljava/util/OptionalDouble;":                    Optional,
	"Ljava/util/concurrent/atomic/AtomicInteger;":   Atomic,
	"Ljava/util/concurrent/atomic/AtomicLong;":      Atomic,
	"Ljava/util/concurrent/atomic/AtomicBoolean;":   Atomic,
	"Ljava/util/concurrent/atomic/AtomicReference;": Atomic,
	"Ljava/lang/Integer;":                           Box, "Ljava/lang/Long;": Box, "Ljava/lang/Short;": Box, "Ljava/lang/Byte;": Box,
	"Ljava/lang/Character;": Box, "Ljava/lang/Boolean;": Box, "Ljava/lang/Float;": Box, "Ljava/lang/Double;": Box,
}

// Options say how much a summary may do.
type Options struct {
	// ToString runs toString() for classes that override it.
	ToString bool
}

// Presenter chooses views and writes summaries; it caches per type what
// never changes while the class is loaded. Safe for concurrent use.
type Presenter struct {
	vm Inspector
	// Forms, when set (before the presenter is used), gives the form in
	// which a source language shows objects of the class of signature sig,
	// nil for none. methods lists the names of the methods the class
	// declares; it is nil when the form is asked by the signature alone
	// (before the class's methods were read for anything else: a class
	// whose form depends on its methods is asked again, with them, when
	// it overrides toString).
	Forms func(ctx context.Context, sig string, methods []string) *Form

	mu        sync.Mutex
	views     map[string]View
	overrides map[string]bool
	forms     map[string]*Form
}

// Form is how a source language shows an object from its fields, as its
// programs print it, with no code run in the VM (Kotlin's Pair as "(1, a)",
// a data class as "Order(id=1, total=9.5)").
type Form struct {
	// Fields names the instance fields the summary reads, in order (the
	// class's or its superclasses'). When nil, the summary reads the
	// class's own first Leading instance fields (a Kotlin data class's
	// primary-constructor properties).
	Fields  []string
	Leading int
	// Summary writes the one-line text from those fields.
	Summary func(fields []FormField) string
}

// FormField is a field a Form's summary reads: its name, its value as the
// program's toString would print it nested (a string without quotes, a
// char as itself, an object in its own summary), and the signature of its
// runtime type ("" for a primitive or null).
type FormField struct {
	Name, Text, Sig string
}

// NewPresenter returns a presenter over vm.
func NewPresenter(vm Inspector) *Presenter {
	return &Presenter{vm: vm, views: map[string]View{}, overrides: map[string]bool{}, forms: map[string]*Form{}}
}

// ViewOf returns the view of type sig.
func (p *Presenter) ViewOf(ctx context.Context, sig string) (View, error) {
	if strings.HasPrefix(sig, "[") || !strings.HasPrefix(sig, "L") {
		return Plain, nil
	}
	p.mu.Lock()
	v, ok := p.views[sig]
	p.mu.Unlock()
	if ok {
		return v, nil
	}
	v, ok = exact[sig]
	for i := 0; !ok && i < len(supertypes); i++ {
		is, err := p.vm.Subtype(ctx, sig, supertypes[i].sig)
		if err != nil {
			return Plain, err
		}
		if is {
			v, ok = supertypes[i].view, true
		}
	}
	var f *Form
	if !ok && p.Forms != nil {
		if f = p.Forms(ctx, sig, nil); f != nil {
			v = Formed
		}
	}
	p.mu.Lock()
	if f != nil {
		p.forms[sig] = f
	}
	p.views[sig] = v
	p.mu.Unlock()
	return v, nil
}

// methodForm is the form of a class its language knows by its methods
// (a Kotlin data class), asked once per class with the names of the
// methods it declares; only for a class overriding toString, whose
// methods the toString check has read already.
func (p *Presenter) methodForm(ctx context.Context, sig string) *Form {
	if p.Forms == nil {
		return nil
	}
	p.mu.Lock()
	f, known := p.forms[sig]
	p.mu.Unlock()
	if known {
		return f
	}
	names, err := p.vm.DeclaredMethodNames(ctx, sig)
	if err != nil {
		return nil
	}
	f = p.Forms(ctx, sig, names)
	p.mu.Lock()
	p.forms[sig] = f
	p.mu.Unlock()
	return f
}

// formText writes an object in a language's form; depth bounds the
// summaries of the objects its fields hold.
func (p *Presenter) formText(ctx context.Context, obj jdwp.ObjectID, f *Form, o Options, depth int) (string, error) {
	all, err := p.vm.Fields(ctx, obj)
	if err != nil {
		return "", err
	}
	var picked []NamedValue
	if f.Fields == nil {
		picked = all[:min(f.Leading, len(all))]
	} else {
		for _, name := range f.Fields {
			for _, nv := range all {
				if nv.Name == name {
					picked = append(picked, nv)
					break
				}
			}
		}
	}
	fields := make([]FormField, len(picked))
	for i, nv := range picked {
		fields[i] = FormField{Name: nv.Name}
		fields[i].Text, fields[i].Sig = p.printed(ctx, nv.Value, o, depth)
	}
	return f.Summary(fields), nil
}

// printed is a nested value as a program's toString prints it, where that
// needs no code run: a string as itself, a char as itself, a box's value,
// a throwable as Throwable.toString (its class's name and message), an
// object of a language's form in it; else its short summary. sig is the
// value's runtime type ("" for a primitive or null).
func (p *Presenter) printed(ctx context.Context, v jdwp.Value, o Options, depth int) (text, sig string) {
	if !v.Tag.IsObject() {
		if v.Tag == jdwp.TagChar {
			return string(utf16.Decode([]uint16{uint16(v.Bits)})), ""
		}
		return Primitive(v), ""
	}
	if v.IsNull() {
		return "null", ""
	}
	sig, err := p.vm.TypeOf(ctx, v.Object())
	if err != nil {
		return "<collected>", ""
	}
	view, err := p.ViewOf(ctx, sig)
	if err != nil {
		return fallback(v.Object(), sig), sig
	}
	switch view {
	case String:
		s, err := p.vm.String(ctx, v.Object())
		if err != nil {
			return "<collected>", sig
		}
		return s, sig
	case Box:
		b, _, err := p.vm.Field(ctx, v.Object(), "value")
		if err != nil {
			return fallback(v.Object(), sig), sig
		}
		t, _ := p.printed(ctx, b, o, depth)
		return t, sig
	case Throwable:
		text := javalang.TypeName(sig)
		if msg, ok, err := p.vm.Field(ctx, v.Object(), "detailMessage"); err == nil && ok && !msg.IsNull() {
			if m, err := p.vm.String(ctx, msg.Object()); err == nil {
				text += ": " + m
			}
		}
		return text, sig
	}
	if view == Plain && p.Forms != nil {
		if over, _ := p.overridesToString(ctx, sig); over {
			if f := p.methodForm(ctx, sig); f != nil {
				view = Formed
			}
		}
	}
	if depth <= 0 && view == Formed {
		return innerName(javalang.SimpleTypeName(sig)) + "(…)", sig
	}
	t, _, err := p.text(ctx, v.Object(), sig, view, o, depth-1)
	if err != nil {
		return fallback(v.Object(), sig), sig
	}
	return t, sig
}

// formDepth is how deep a form's fields show the objects they hold
// (Line(from=Point(x=0, y=0), …)).
const formDepth = 3

// Summary is a value's one-line presentation.
type Summary struct {
	Text string
	View View
	// Size is a collection's or map's size, or -1 when unknown.
	Size int
}

// maxText bounds a summary's length.
const maxText = 500

// Summarize writes the one-line summary of object obj of type sig (not a
// string, box or array: callers show those themselves).
func (p *Presenter) Summarize(ctx context.Context, obj jdwp.ObjectID, sig string, o Options) (Summary, error) {
	view, err := p.ViewOf(ctx, sig)
	if err != nil {
		return Summary{}, err
	}
	s := Summary{View: view, Size: -1}
	depth := 1
	if view == Formed {
		depth = formDepth
	}
	s.Text, s.Size, err = p.text(ctx, obj, sig, view, o, depth)
	if len(s.Text) > maxText {
		s.Text = s.Text[:maxText] + "…"
	}
	return s, err
}

// fallback is how an object without a better presentation reads.
func fallback(obj jdwp.ObjectID, sig string) string {
	return fmt.Sprintf("%s (id=%d)", javalang.SimpleTypeName(sig), obj)
}

// text is Summarize's work; depth bounds nested summaries (entries, records).
func (p *Presenter) text(ctx context.Context, obj jdwp.ObjectID, sig string, view View, o Options, depth int) (string, int, error) {
	simple := javalang.SimpleTypeName(sig)
	switch view {
	case String:
		s, err := p.vm.String(ctx, obj)
		return strconv.Quote(s), -1, err
	case Box:
		v, _, err := p.vm.Field(ctx, obj, "value")
		return Primitive(v), -1, err
	case Collection, Map:
		n, err := p.Size(ctx, obj)
		if err != nil || n < 0 {
			return simple, -1, nil
		}
		return fmt.Sprintf("%s (size=%d)", simple, n), n, nil
	case MapEntry:
		k, v, err := p.Entry(ctx, obj)
		if err != nil {
			return fallback(obj, sig), -1, nil
		}
		return p.short(ctx, k, o, depth) + " -> " + p.short(ctx, v, o, depth), -1, nil
	case Optional:
		v, ok, err := p.vm.Field(ctx, obj, "value")
		if err != nil || !ok {
			return fallback(obj, sig), -1, err
		}
		if present, ok, _ := p.vm.Field(ctx, obj, "isPresent"); ok && !present.Bool() || !ok && v.IsNull() {
			return simple + ".empty", -1, nil
		}
		return simple + "[" + p.short(ctx, v, o, depth) + "]", -1, nil
	case Atomic:
		v, ok, err := p.vm.Field(ctx, obj, "value")
		if err != nil || !ok {
			return fallback(obj, sig), -1, err
		}
		if sig == "Ljava/util/concurrent/atomic/AtomicBoolean;" {
			return strconv.FormatBool(v.Int() != 0), -1, nil
		}
		return p.short(ctx, v, o, depth), -1, nil
	case Builder:
		str, err := p.builder(ctx, obj)
		if err != nil {
			return fallback(obj, sig), -1, nil
		}
		return strconv.Quote(str), -1, nil
	case Enum:
		name, ok, err := p.vm.Field(ctx, obj, "name")
		if err != nil || !ok || name.IsNull() {
			return fallback(obj, sig), -1, err
		}
		n, err := p.vm.String(ctx, name.Object())
		return innerName(simple) + "." + n, -1, err
	case Record:
		if depth <= 0 {
			return innerName(simple) + "[…]", -1, nil
		}
		fs, err := p.vm.Fields(ctx, obj)
		if err != nil {
			return fallback(obj, sig), -1, err
		}
		parts := make([]string, len(fs))
		for i, f := range fs {
			parts[i] = f.Name + "=" + p.short(ctx, f.Value, o, depth-1)
		}
		return innerName(simple) + "[" + strings.Join(parts, ", ") + "]", -1, nil
	case Class:
		n, err := p.vm.ClassName(ctx, obj)
		if err != nil {
			return fallback(obj, sig), -1, err
		}
		if !strings.Contains(n, ".") && strings.ToLower(n) == n { // int.class, void.class
			return n, -1, nil
		}
		return "class " + n, -1, nil
	case Thread:
		name, ok, err := p.vm.Field(ctx, obj, "name")
		if err != nil || !ok || name.IsNull() {
			return fallback(obj, sig), -1, err
		}
		n, err := p.vm.String(ctx, name.Object())
		return simple + " " + strconv.Quote(n), -1, err
	case Throwable:
		msg, ok, err := p.vm.Field(ctx, obj, "detailMessage")
		if err != nil || !ok || msg.IsNull() {
			return simple, -1, err
		}
		m, err := p.vm.String(ctx, msg.Object())
		return simple + ": " + m, -1, err
	case Formed:
		p.mu.Lock()
		f := p.forms[sig]
		p.mu.Unlock()
		if f == nil {
			return fallback(obj, sig), -1, nil
		}
		t, err := p.formText(ctx, obj, f, o, depth)
		if err != nil {
			return fallback(obj, sig), -1, err
		}
		return t, -1, nil
	}
	if over, _ := p.overridesToString(ctx, sig); over && p.Forms != nil {
		if f := p.methodForm(ctx, sig); f != nil {
			t, err := p.formText(ctx, obj, f, o, formDepth)
			if err == nil {
				return t, -1, nil
			}
		}
	}
	if o.ToString {
		if s, ok := p.toString(ctx, obj, sig); ok {
			return s, -1, nil
		}
	}
	return fallback(obj, sig), -1, nil
}

// innerName is a nested class's own name, as Java source writes it
// (Outer$Status → Status); a constant with a body is an anonymous subclass
// (Op$1), named after its enum (Op).
func innerName(simple string) string {
	if i := strings.LastIndexByte(simple, '$'); i >= 0 {
		if _, err := strconv.Atoi(simple[i+1:]); err == nil {
			simple = simple[:i]
		}
	}
	return simple[strings.LastIndexByte(simple, '$')+1:]
}

// overridesToString reports whether class sig overrides toString (cached).
func (p *Presenter) overridesToString(ctx context.Context, sig string) (bool, error) {
	p.mu.Lock()
	over, known := p.overrides[sig]
	p.mu.Unlock()
	if known {
		return over, nil
	}
	over, err := p.vm.Overrides(ctx, sig, "toString", "()Ljava/lang/String;")
	if err != nil {
		return false, err
	}
	p.mu.Lock()
	p.overrides[sig] = over
	p.mu.Unlock()
	return over, nil
}

// toString runs obj.toString() when its class overrides it.
func (p *Presenter) toString(ctx context.Context, obj jdwp.ObjectID, sig string) (string, bool) {
	if over, err := p.overridesToString(ctx, sig); err != nil || !over {
		return "", false
	}
	v, err := p.vm.Invoke(ctx, obj, "toString", "()Ljava/lang/String;")
	var pe *PresentError
	if errors.As(err, &pe) {
		return fallback(obj, sig) + " (" + pe.Text + ")", true
	}
	if err != nil || v.IsNull() {
		return "", false
	}
	s, err := p.vm.String(ctx, v.Object())
	return s, err == nil
}

// PresentError is an Inspector.Invoke failure that presentation shows in
// the value's text, next to its plain form ("toString() did not return in
// 3s", "toString() threw …"): the value loses its text, never the others
// theirs. Other failures fall back to the plain form silently.
type PresentError struct{ Text string }

func (e *PresentError) Error() string { return e.Text }

// Short is a nested value's one-line summary (a map entry's key or value),
// at most 100 characters.
func (p *Presenter) Short(ctx context.Context, v jdwp.Value, o Options) string {
	return p.short(ctx, v, o, 1)
}

// short is a nested value's summary (a map entry's key, a record component).
func (p *Presenter) short(ctx context.Context, v jdwp.Value, o Options, depth int) string {
	if !v.Tag.IsObject() {
		return Primitive(v)
	}
	if v.IsNull() {
		return "null"
	}
	sig := "Ljava/lang/String;"
	if v.Tag != jdwp.TagString {
		var err error
		if sig, err = p.vm.TypeOf(ctx, v.Object()); err != nil {
			return "<collected>"
		}
	}
	if strings.HasPrefix(sig, "[") {
		return fmt.Sprintf("%s (id=%d)", javalang.SimpleTypeName(sig), v.Bits)
	}
	view, err := p.ViewOf(ctx, sig)
	if err != nil {
		return fallback(v.Object(), sig)
	}
	t, _, err := p.text(ctx, v.Object(), sig, view, o, depth-1)
	if err != nil {
		return fallback(v.Object(), sig)
	}
	if len(t) > 100 {
		t = t[:100] + "…"
	}
	return t
}

// Primitive writes a primitive value as Java does.
func Primitive(v jdwp.Value) string {
	switch v.Tag {
	case jdwp.TagBoolean:
		return strconv.FormatBool(v.Bool())
	case jdwp.TagChar:
		return javaChar(uint16(v.Bits))
	case jdwp.TagFloat:
		return javalang.Float(float64(v.Float()), 32)
	case jdwp.TagDouble:
		return javalang.Float(v.Double(), 64)
	}
	return v.String()
}

func javaChar(c uint16) string {
	switch c {
	case '\'':
		return `'\''`
	case '\\':
		return `'\\'`
	}
	s := strconv.QuoteRune(rune(c))
	return "'" + s[1:len(s)-1] + "'"
}

// Size returns a collection's or map's size: from its fields when the
// implementation keeps it there (no code runs: see sizeField), else
// size(); -1 when neither works.
func (p *Presenter) Size(ctx context.Context, obj jdwp.ObjectID) (int, error) {
	if n, ok, err := p.sizeField(ctx, obj, 2); err != nil {
		return -1, err
	} else if ok {
		return n, nil
	}
	if sig, err := p.vm.TypeOf(ctx, obj); err == nil {
		if l, ok, err := p.FieldElements(ctx, obj, sig); err == nil && ok {
			return l.Len, nil
		}
	}
	v, err := p.vm.Invoke(ctx, obj, "size", "()I")
	if err != nil {
		return -1, nil
	}
	return int(v.Int()), nil
}

// sizeField reads a JDK collection's size from its fields: a size field
// (ArrayList, HashMap, LinkedList, TreeMap, the immutable SetN and MapN),
// the length of an exact elements array (List.of's ListN), or, depth
// levels down, the size of the collection or map a wrapper holds (HashSet's
// map, Collections.unmodifiable*'s c and m).
func (p *Presenter) sizeField(ctx context.Context, obj jdwp.ObjectID, depth int) (int, bool, error) {
	if v, ok, err := p.vm.Field(ctx, obj, "size"); err != nil || (ok && v.Tag == jdwp.TagInt) {
		return int(v.Int()), err == nil, err
	}
	if sig, err := p.vm.TypeOf(ctx, obj); err == nil && sig == "Ljava/util/ImmutableCollections$ListN;" {
		if v, ok, err := p.vm.Field(ctx, obj, "elements"); err == nil && ok && !v.IsNull() {
			n, err := p.vm.ArrayLength(ctx, v.Object())
			return n, err == nil, nil
		}
	}
	for _, name := range []string{"map", "c", "m"} {
		if depth == 0 {
			break
		}
		if v, ok, err := p.vm.Field(ctx, obj, name); err == nil && ok && v.Tag.IsObject() && !v.IsNull() {
			return p.sizeField(ctx, v.Object(), depth-1)
		}
	}
	return 0, false, nil
}

// ErrNoElements is returned by Elements when a collection's elements cannot
// be gathered here (methods may not run); callers show the raw fields.
var ErrNoElements = errors.New("the elements cannot be listed here")

// Elements gathers a collection's elements, or a map's entries, into an
// Object[] created in the VM by toArray() (entrySet().toArray() for a map),
// run in the stopped thread. The VM keeps objects a method returns from the
// garbage collector until it resumes.
func (p *Presenter) Elements(ctx context.Context, obj jdwp.ObjectID, view View) (jdwp.ObjectID, error) {
	recv := obj
	if view == Map {
		set, err := p.vm.Invoke(ctx, obj, "entrySet", "()Ljava/util/Set;")
		if err != nil {
			return 0, fmt.Errorf("%w: entrySet(): %v", ErrNoElements, err)
		}
		if set.IsNull() {
			return 0, fmt.Errorf("%w: entrySet() returned null", ErrNoElements)
		}
		recv = set.Object()
	}
	arr, err := p.vm.Invoke(ctx, recv, "toArray", "()[Ljava/lang/Object;")
	if err != nil {
		return 0, fmt.Errorf("%w: toArray(): %v", ErrNoElements, err)
	}
	if arr.IsNull() {
		return 0, fmt.Errorf("%w: toArray() returned null", ErrNoElements)
	}
	return arr.Object(), nil
}

// Entry returns a Map.Entry's key and value: the key and value (or val)
// fields of the common implementations, else getKey() and getValue().
func (p *Presenter) Entry(ctx context.Context, entry jdwp.ObjectID) (k, v jdwp.Value, err error) {
	k, kok, err := p.vm.Field(ctx, entry, "key")
	if err != nil {
		return k, v, err
	}
	v, vok, err := p.vm.Field(ctx, entry, "value")
	if err != nil {
		return k, v, err
	}
	if !vok {
		v, vok, err = p.vm.Field(ctx, entry, "val")
		if err != nil {
			return k, v, err
		}
	}
	if kok && vok {
		return k, v, nil
	}
	if k, err = p.vm.Invoke(ctx, entry, "getKey", "()Ljava/lang/Object;"); err != nil {
		return k, v, err
	}
	v, err = p.vm.Invoke(ctx, entry, "getValue", "()Ljava/lang/Object;")
	return k, v, err
}

// builder reads a StringBuilder's or StringBuffer's contents from its
// fields (JDK 9+ layout: value bytes, coder, count), or by toString().
func (p *Presenter) builder(ctx context.Context, obj jdwp.ObjectID) (string, error) {
	val, vok, err := p.vm.Field(ctx, obj, "value")
	if err != nil {
		return "", err
	}
	count, cok, _ := p.vm.Field(ctx, obj, "count")
	coder, dok, _ := p.vm.Field(ctx, obj, "coder")
	if vok && cok && !val.IsNull() {
		n := int(count.Int())
		if n > maxText {
			n = maxText
		}
		utf16LE := dok && coder.Int() == 1
		width := 1
		if utf16LE {
			width = 2
		}
		if n == 0 {
			return "", nil
		}
		elems, err := p.vm.ArrayValues(ctx, val.Object(), 0, n*width)
		if err == nil {
			switch {
			case !dok && len(elems) > 0 && elems[0].Tag == jdwp.TagChar: // char[] (JDK 8)
				u := make([]uint16, len(elems))
				for i, e := range elems {
					u[i] = uint16(e.Bits)
				}
				return string(utf16.Decode(u)), nil
			case utf16LE:
				u := make([]uint16, n)
				for i := range u {
					u[i] = uint16(uint8(elems[2*i].Bits)) | uint16(uint8(elems[2*i+1].Bits))<<8
				}
				return string(utf16.Decode(u)), nil
			default:
				r := make([]rune, len(elems))
				for i, e := range elems {
					r[i] = rune(uint8(e.Bits))
				}
				return string(r), nil
			}
		}
	}
	s, err := p.vm.Invoke(ctx, obj, "toString", "()Ljava/lang/String;")
	if err != nil || s.IsNull() {
		return "", fmt.Errorf("read the builder: %v", err)
	}
	return p.vm.String(ctx, s.Object())
}

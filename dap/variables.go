package dap

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/debugger"
	"github.com/ddmbridge/ddmbridge/jdwp/eval"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	"github.com/ddmbridge/ddmbridge/jdwp/lang"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/java/expr"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
	godap "github.com/google/go-dap"
)

// container is what a variablesReference stands for: a scope, an object or
// an array whose children the variables request lists.
type container interface {
	children(ctx context.Context, d *debuggee, filter string, start, count int) ([]godap.Variable, error)
}

type (
	localsScope  struct{ f mirror.Frame }
	spilledScope struct{ af *debugger.AsyncFrame }
	staticsScope struct {
		class  jdwp.ReferenceTypeID
		thread jdwp.ThreadID
		loc    jdwp.Location
	}
	objectVars struct {
		obj      jdwp.ObjectID
		class    jdwp.ReferenceTypeID
		evalName string
	}
	arrayVars struct {
		arr      jdwp.ObjectID
		sig      string
		length   int
		evalName string
	}
)

// maxUnpaged bounds the elements listed of an array when the client asks for
// all of them; clients page through indexedVariables anyway.
const maxUnpaged = 10000

func (s *session) variablesOf(ctx context.Context, r *godap.VariablesRequest) (godap.VariablesResponseBody, error) {
	d := s.dbg
	c, ok := d.refs.vars.get(r.Arguments.VariablesReference)
	if !ok {
		return godap.VariablesResponseBody{}, fmt.Errorf("unknown reference %d (references are forgotten when the VM resumes)", r.Arguments.VariablesReference)
	}
	vars, err := c.children(withHex(ctx, r.Arguments.Format), d, r.Arguments.Filter, r.Arguments.Start, r.Arguments.Count)
	if err != nil {
		return godap.VariablesResponseBody{}, err
	}
	if vars == nil {
		vars = []godap.Variable{}
	}
	return godap.VariablesResponseBody{Variables: vars}, nil
}

// named pairs a JDWP value with the variable name and evaluate name it gets.
type named struct {
	name, evalName string
	v              jdwp.Value
}

// variables turns values into variables, many at once.
func (d *debuggee) variables(ctx context.Context, vals []named) ([]godap.Variable, error) {
	out := make([]godap.Variable, len(vals))
	err := parallel(len(vals), func(i int) error {
		v, err := d.soonVariable(ctx, vals[i])
		out[i] = v
		return err
	})
	return out, err
}

// softWait bounds the wait for one value's methods (a toString).
const softWait = 100 * time.Millisecond

type (
	pendingKey struct {
		name, evalName string
		v              jdwp.Value
		hex            bool
	}
	pendingVal struct {
		v   godap.Variable
		err error
	}
	pendingVar struct{ key pendingKey } // a pending value's lazy reference
)

// soonVariable is variable for an object, waited for at most softWait
// when the client can be told to ask again (Presentation.Soon); else
// shown by its fields, lazily (expanding it waits for it).
func (d *debuggee) soonVariable(ctx context.Context, n named) (godap.Variable, error) {
	if !d.s.client.SupportsInvalidatedEvent || !n.v.Tag.IsObject() || n.v.IsNull() || n.v.Tag == jdwp.TagString {
		return d.variable(ctx, n.name, n.evalName, n.v)
	}
	key := pendingKey{n.name, n.evalName, n.v, ctx.Value(hexKey{}) == true}
	r, _ := d.t.Presentation().Soon(ctx, key, softWait, func(ctx context.Context) any {
		v, err := d.variable(ctx, n.name, n.evalName, n.v)
		return pendingVal{v, err}
	})
	if pv, ok := r.(pendingVal); ok {
		return pv.v, pv.err
	}
	v, err := d.variable(withNoInvoke(ctx, "the value is pending"), n.name, n.evalName, n.v)
	if err != nil {
		return v, err
	}
	v.Value += " (pending: its methods still run; shown when they return)"
	v.VariablesReference, v.NamedVariables, v.IndexedVariables = d.refs.vars.add(&pendingVar{key}), 0, 0
	v.PresentationHint = &godap.VariablePresentationHint{Lazy: true}
	return v, nil
}

// children of a pending value: the value itself, once done.
func (c *pendingVar) children(ctx context.Context, d *debuggee, _ string, _, _ int) ([]godap.Variable, error) {
	if r, _ := d.t.Presentation().Pending(ctx, c.key); r != nil {
		return []godap.Variable{r.(pendingVal).v}, r.(pendingVal).err
	}
	return nil, fmt.Errorf("the value's methods still run (a toString slower than %v); it is shown when they return", d.invokeTimeout())
}

// variable shows a JDWP value: primitives as Java writes them, strings
// quoted, boxed values as their primitive, arrays as int[3] with paged
// elements, other objects through package mirror (a logical view or a
// summary, and their fields). References cost one ObjectType lookup, for
// their runtime type (an array's length is asked with it).
func (d *debuggee) variable(ctx context.Context, name, evalName string, v jdwp.Value) (godap.Variable, error) {
	sig := ""
	switch {
	case v.Tag == jdwp.TagString:
		sig = "Ljava/lang/String;"
	case v.Tag.IsObject() && !v.IsNull():
		var s string
		var err error
		if v.Tag == jdwp.TagArray {
			// An array shows its length: asked with its type, not after
			// (kept; an error is met again below).
			mirror.Parallel(2, func(i int) error {
				if i == 0 {
					_, s, err = d.vm.ObjectType(ctx, v.Object())
				} else {
					d.vm.ArrayLength(ctx, v.Object())
				}
				return nil
			})
		} else {
			_, s, err = d.vm.ObjectType(ctx, v.Object())
		}
		if isCollected(err) {
			return godap.Variable{Name: name, Value: "<collected>", EvaluateName: evalName}, nil
		}
		if err != nil {
			return godap.Variable{}, err
		}
		sig = s
	}
	return d.typedVariable(ctx, name, evalName, v, sig)
}

// exprVariable shows an evaluation's result as variable shows a value: a
// string the engine made itself as its literal, any other value by its
// JDWP form and the type the engine knows.
func (d *debuggee) exprVariable(ctx context.Context, name, evalName string, v expr.Value) (godap.Variable, error) {
	switch {
	case v.Kind == expr.KindVoid:
		return godap.Variable{Name: name, EvaluateName: evalName, Value: "void"}, nil
	case v.Kind == expr.KindString && v.Known:
		return godap.Variable{Name: name, EvaluateName: evalName, Value: v.Literal(), Type: "String"}, nil
	}
	return d.typedVariable(ctx, name, evalName, eval.ToJDWP(v), v.Type)
}

func isCollected(err error) bool {
	return jdwp.Code(err) == jdwp.ErrInvalidObject
}

// simpleName is the last part of a type name: "java.util.HashMap$Node" → "HashMap$Node".
func simpleName(name string) string { return javalang.SimpleName(name) }

// typedVariable shows v, whose runtime type (for a reference) is sig.
func (d *debuggee) typedVariable(ctx context.Context, name, evalName string, v jdwp.Value, sig string) (godap.Variable, error) {
	out := godap.Variable{Name: name, EvaluateName: evalName}
	obj := v.Object()
	switch {
	case v.Tag == jdwp.TagVoid:
		out.Value = "void"
	case !v.Tag.IsObject():
		out.Value, out.Type = formatPrimitive(ctx, v), javalang.TypeName(string(rune(v.Tag)))
	case v.IsNull() || obj == 0:
		out.Value = "null"
	case sig == "Ljava/lang/String;":
		str, err := d.vm.String(ctx, obj)
		if isCollected(err) {
			out.Value = "<collected>"
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out.Value, out.Type = expr.StringLit(str).Literal(), "String"
	case expr.IsBox(sig):
		out.Type = simpleName(javalang.TypeName(sig))
		pv, ok, err := d.vm.Member(ctx, obj, "value")
		if err == nil && !ok {
			err = fmt.Errorf("%s has no field value", javalang.TypeName(sig))
		}
		if err != nil {
			return out, err
		}
		out.Value = formatPrimitive(ctx, pv)
		out.VariablesReference = d.objectRef(ctx, obj, evalName)
	case strings.HasPrefix(sig, "["):
		out.Type = javalang.TypeName(sig)
		n, err := d.vm.ArrayLength(ctx, obj)
		if err != nil {
			return out, err
		}
		elem := simpleName(javalang.TypeName(sig[1:]))
		out.Value = fmt.Sprintf("%s[%d]%s (id=%d)", strings.TrimSuffix(elem, strings.Repeat("[]", strings.Count(elem, "[]"))), n, strings.Repeat("[]", strings.Count(elem, "[]")), obj)
		out.IndexedVariables = int(n)
		if n > 0 {
			out.VariablesReference = d.refs.vars.add(&arrayVars{arr: obj, sig: sig, length: int(n), evalName: evalName})
		}
	default:
		out.Type = javalang.TypeName(sig)
		return d.objectVariable(ctx, out, obj, sig)
	}
	return out, nil
}

// objectVariable presents an object through package mirror: a logical view
// (collections and maps list their elements, paged, with a raw view), or
// its summary (enum constant, record components, toString…) and fields.
func (d *debuggee) objectVariable(ctx context.Context, out godap.Variable, obj jdwp.ObjectID, sig string) (godap.Variable, error) {
	sum, err := d.presenter().Summarize(ctx, obj, sig, mirror.Options{ToString: d.showToString()})
	if isCollected(err) {
		out.Value = "<collected>"
		return out, nil
	}
	if err != nil {
		d.log.Debug().Err(err).Str("type", sig).Msg("present a value")
		sum = mirror.Summary{Text: fmt.Sprintf("%s (id=%d)", simpleName(out.Type), obj), Size: -1}
	}
	out.Value = sum.Text
	t, _, err := d.vm.ObjectType(ctx, obj)
	if err != nil {
		return out, nil
	}
	raw := &objectVars{obj: obj, class: t, evalName: out.EvaluateName}
	switch {
	case sum.View.Logical():
		out.VariablesReference = d.refs.vars.add(&logicalVars{raw: raw, view: sum.View, size: sum.Size})
		if sum.Size >= 0 {
			out.IndexedVariables, out.NamedVariables = sum.Size, 1
		}
	case sum.View == mirror.MapEntry:
		out.VariablesReference = d.refs.vars.add(&logicalVars{raw: raw, view: sum.View, size: -1})
	default:
		out.VariablesReference = d.refs.vars.add(raw)
	}
	return out, nil
}

// logicalVars are the children of an object in a logical view: a
// collection's elements or a map's entries (paged; gathered once per stop
// by toArray in the VM), a map entry's key and value; and a raw view of the
// object's fields.
type logicalVars struct {
	raw  *objectVars
	view mirror.View
	size int // -1 when unknown

	mu     sync.Mutex
	fields *mirror.ElementList // the elements read from the fields (JDK classes)
	tried  bool                // fields looked at
	arr    jdwp.ObjectID       // else the elements gathered by toArray, once
	n      int
}

// fieldElements returns the elements read from the collection's fields,
// nil when its class is not one of the JDK's whose layout is known.
func (c *logicalVars) fieldElements(ctx context.Context, d *debuggee) *mirror.ElementList {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.tried && !elementsByToArray {
		c.tried = true
		sig, err := d.vm.Signature(ctx, c.raw.class)
		if err == nil {
			l, ok, err := d.presenter().FieldElements(ctx, c.raw.obj, sig)
			if err != nil {
				d.log.Debug().Err(err).Str("type", sig).Msg("read the elements from the fields")
			}
			if ok && err == nil {
				c.fields = l
			}
		}
	}
	return c.fields
}

// elementsByToArray makes every collection's elements gathered by toArray
// (the way before they were read from the fields): benchmarks compare.
var elementsByToArray = false

// fieldChildren is a page of the elements read from the fields: a
// collection's elements, or a map's entries (key -> value, with their key
// and value as children).
func (c *logicalVars) fieldChildren(ctx context.Context, d *debuggee, l *mirror.ElementList, start, count int) ([]godap.Variable, error) {
	if count <= 0 {
		count = l.Len - start
	}
	count = min(count, maxUnpaged)
	es, err := l.Page(ctx, start, count)
	if err != nil {
		return nil, err
	}
	if !l.Map {
		vals := make([]named, len(es))
		for i, e := range es {
			vals[i] = named{"[" + strconv.Itoa(start+i) + "]", "", e.Value}
		}
		return d.variables(ctx, vals)
	}
	o := mirror.Options{ToString: d.showToString()}
	out := make([]godap.Variable, len(es))
	for i, e := range es {
		out[i] = godap.Variable{
			Name:               "[" + strconv.Itoa(start+i) + "]",
			Value:              d.presenter().Short(ctx, e.Key, o) + " -> " + d.presenter().Short(ctx, e.Value, o),
			VariablesReference: d.refs.vars.add(&entryVars{key: e.Key, value: e.Value}),
		}
	}
	return out, nil
}

// entryVars are a map entry's key and value, read from the map's fields.
type entryVars struct{ key, value jdwp.Value }

func (c *entryVars) children(ctx context.Context, d *debuggee, filter string, _, _ int) ([]godap.Variable, error) {
	if filter == "indexed" {
		return nil, nil
	}
	return d.variables(ctx, []named{{"key", "", c.key}, {"value", "", c.value}})
}

// rawName names the child that shows an object's fields.
const rawName = "<raw>"

func (c *logicalVars) rawChild(ctx context.Context, d *debuggee) godap.Variable {
	sig, _ := d.vm.Signature(ctx, c.raw.class)
	return godap.Variable{Name: rawName, Value: simpleName(javalang.TypeName(sig)) + " fields", VariablesReference: d.refs.vars.add(c.raw)}
}

func (c *logicalVars) elements(ctx context.Context, d *debuggee) (jdwp.ObjectID, int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.arr != 0 {
		return c.arr, c.n, nil
	}
	arr, err := d.presenter().Elements(ctx, c.raw.obj, c.view)
	if err != nil {
		return 0, 0, err
	}
	n, err := d.vm.ArrayLength(ctx, arr)
	if err != nil {
		return 0, 0, err
	}
	c.arr, c.n = arr, int(n)
	return c.arr, c.n, nil
}

func (c *logicalVars) children(ctx context.Context, d *debuggee, filter string, start, count int) ([]godap.Variable, error) {
	if c.view == mirror.MapEntry {
		k, v, err := d.presenter().Entry(ctx, c.raw.obj)
		if err != nil {
			return c.raw.children(ctx, d, filter, start, count)
		}
		out, err := d.variables(ctx, []named{{"key", "", k}, {"value", "", v}})
		return append(out, c.rawChild(ctx, d)), err
	}
	if filter == "named" {
		return []godap.Variable{c.rawChild(ctx, d)}, nil
	}
	if l := c.fieldElements(ctx, d); l != nil {
		var out []godap.Variable
		if start < l.Len {
			var err error
			if out, err = c.fieldChildren(ctx, d, l, start, count); err != nil {
				return nil, err
			}
		}
		if filter == "" {
			out = append(out, c.rawChild(ctx, d))
		}
		return out, nil
	}
	arr, n, err := c.elements(ctx, d)
	if err != nil {
		// Methods may not run here (a thread stopped by pause): the fields.
		d.log.Debug().Err(err).Msg("gather elements")
		if filter == "indexed" {
			return []godap.Variable{{Name: "<elements>", Value: "cannot be listed here: " + err.Error()}}, nil
		}
		return c.raw.children(ctx, d, filter, start, count)
	}
	var out []godap.Variable
	if start < n {
		elems := arrayVars{arr: arr, length: n}
		if out, err = elems.children(ctx, d, "indexed", start, count); err != nil {
			return nil, err
		}
	}
	if filter == "" {
		out = append(out, c.rawChild(ctx, d))
	}
	return out, nil
}

// hexKey marks a context whose request asked for hexadecimal integers
// (valueFormattingOptions).
type hexKey struct{}

func withHex(ctx context.Context, f *godap.ValueFormat) context.Context {
	if f != nil && f.Hex {
		return context.WithValue(ctx, hexKey{}, true)
	}
	return ctx
}

// formatPrimitive shows a primitive as Java writes it (chars quoted), or
// integers in hexadecimal (two's complement at their width) when the request
// asked for hex.
func formatPrimitive(ctx context.Context, v jdwp.Value) string {
	if hex, _ := ctx.Value(hexKey{}).(bool); hex {
		switch v.Tag {
		case jdwp.TagByte:
			return fmt.Sprintf("0x%x", uint8(v.Bits))
		case jdwp.TagShort:
			return fmt.Sprintf("0x%x", uint16(v.Bits))
		case jdwp.TagInt:
			return fmt.Sprintf("0x%x", uint32(v.Bits))
		case jdwp.TagLong:
			return fmt.Sprintf("0x%x", v.Bits)
		}
	}
	switch v.Tag {
	case jdwp.TagBoolean:
		return strconv.FormatBool(v.Bool())
	case jdwp.TagByte:
		return strconv.Itoa(int(int8(v.Bits)))
	case jdwp.TagShort:
		return strconv.Itoa(int(int16(v.Bits)))
	case jdwp.TagInt:
		return strconv.Itoa(int(int32(v.Bits)))
	case jdwp.TagLong:
		return strconv.FormatInt(int64(v.Bits), 10)
	case jdwp.TagFloat:
		return javalang.Float(float64(v.Float()), 32)
	case jdwp.TagDouble:
		return javalang.Float(v.Double(), 64)
	case jdwp.TagChar:
		return expr.CharValue(uint16(v.Bits)).Literal()
	}
	return "?"
}

func (d *debuggee) objectRef(ctx context.Context, obj jdwp.ObjectID, evalName string) int {
	t, _, err := d.vm.ObjectType(ctx, obj)
	if err != nil {
		return 0
	}
	return d.refs.vars.add(&objectVars{obj: obj, class: t, evalName: evalName})
}

func (c *localsScope) children(ctx context.Context, d *debuggee, _ string, _, _ int) ([]godap.Variable, error) {
	var vals []named
	m, err := d.vm.Method(ctx, c.f.Loc.Class, c.f.Loc.Method)
	if err != nil {
		return nil, err
	}
	// Read from the VM, or from the stop while a method runs in the thread.
	fl, err := d.t.Locals(ctx, c.f)
	if err != nil {
		return nil, err
	}
	if this := fl.This; this.ID != 0 {
		vals = append(vals, named{"this", "this", jdwp.Value{Tag: this.Tag, Bits: uint64(this.ID)}})
	}
	if exc, ok := d.stoppedOn(fl.Frame); ok {
		vals = append([]named{{exceptionName, "exception", jdwp.Value{Tag: exc.Tag, Bits: uint64(exc.ID)}}}, vals...)
	}
	names := make([]string, len(fl.Vars))
	for i, v := range fl.Vars {
		names[i] = v.Name
	}
	l := d.langOfClass(ctx, fl.Frame.Loc.Class)
	shown, ok := lang.VariableNames(l, names)
	for i, v := range fl.Vars {
		if ok[i] {
			// An initialized lazy local evaluates by the name it shows
			// (the Kotlin engine reads x through x$delegate).
			vals = append(vals, d.unwrapLazy(ctx, l, v.Name, named{shown[i], v.Name, fl.Vals[i]}, shown[i]))
		}
	}
	out, err := d.variables(ctx, vals)
	if fl.Absent && m.ModBits&jdwp.AccNative == 0 {
		out = append(out, godap.Variable{Name: "<locals>", Value: "no local variable information: compile with javac -g"})
	}
	return out, err
}

// children of a continuation of an async stack: its receiver (this, for a
// member function) and the variables it keeps while suspended, under the
// source's names, as the frame's expressions name them.
func (c *spilledScope) children(ctx context.Context, d *debuggee, _ string, _, _ int) ([]godap.Variable, error) {
	vals := make([]named, 0, len(c.af.Spilled)+1)
	if this := d.asyncThis(ctx, c.af); this.Tag != 0 && !this.IsNull() {
		vals = append(vals, named{"this", "this", this})
	}
	for _, v := range c.af.Spilled {
		if v.Name != "this" {
			vals = append(vals, named{v.Name, v.Name, v.Value})
		}
	}
	return d.variables(ctx, vals)
}

// exceptionName is the local that shows the exception a thread stopped on.
const exceptionName = "<exception>"

// stoppedOn returns the exception the VM stopped on when f is the top frame
// of the thread that threw it.
func (d *debuggee) stoppedOn(f mirror.Frame) (jdwp.TaggedObjectID, bool) {
	exc, _, ok := d.t.LastException(f.Thread)
	thread, reason, _ := d.stops.Latest()
	return exc, ok && f.Depth == 0 && reason == "exception" && thread == f.Thread && exc.ID != 0
}

func (c *staticsScope) children(ctx context.Context, d *debuggee, _ string, _, _ int) ([]godap.Variable, error) {
	fs, err := d.vm.DeclaredFields(ctx, c.class)
	if err != nil {
		return nil, err
	}
	sig, err := d.vm.Signature(ctx, c.class)
	if err != nil {
		return nil, err
	}
	owner := simpleName(javalang.TypeName(sig))
	var ids []jdwp.FieldID
	var names []string
	for _, f := range fs {
		if f.ModBits&jdwp.AccStatic != 0 && f.ModBits&jdwp.AccSynthetic == 0 {
			ids = append(ids, f.ID)
			names = append(names, f.Name)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	values, err := d.vm.ReadStatics(ctx, c.class, ids)
	if err != nil {
		return nil, err
	}
	vals := make([]named, len(ids))
	for i := range ids {
		vals[i] = named{names[i], strings.ReplaceAll(owner, "$", ".") + "." + names[i], values[i]}
	}
	return d.variables(ctx, vals)
}

// fieldNamer is a language that shows some compiler-made fields under
// their source's names (Kotlin: this$0 as this@Outer: jdwp/lang/kotlin).
// Their expressions keep the field's own name.
type fieldNamer interface {
	FieldName(name, typeSig string) string
}

func (c *objectVars) children(ctx context.Context, d *debuggee, filter string, _, _ int) ([]godap.Variable, error) {
	if filter == "indexed" {
		return nil, nil
	}
	chain, err := d.vm.FieldChain(ctx, c.class)
	if err != nil {
		return nil, err
	}
	var inst []mirror.Field
	count := map[string]int{}
	for _, f := range chain {
		if f.ModBits&jdwp.AccStatic == 0 {
			inst = append(inst, f)
			count[f.Name]++
		}
	}
	if len(inst) == 0 {
		return nil, nil
	}
	ids := make([]jdwp.FieldID, len(inst))
	for i, f := range inst {
		ids[i] = f.ID
	}
	values, err := d.vm.ReadFields(ctx, c.obj, ids)
	if err != nil {
		return nil, err
	}
	vals := make([]named, len(inst))
	var namer fieldNamer
	var fl lang.Language
	for _, f := range inst {
		if strings.Contains(f.Name, "$") { // only compiler-made names are renamed: no round trip for the language otherwise
			fl = d.langOfClass(ctx, c.class)
			namer, _ = fl.(fieldNamer)
			break
		}
	}
	for i, f := range inst {
		name, evalName := f.Name, c.evalName+"."+f.Name
		if namer != nil {
			name = namer.FieldName(f.Name, f.Signature)
		}
		if count[f.Name] > 1 && f.Class != c.class { // shadowed by a subclass field
			sig, _ := d.vm.Signature(ctx, f.Class)
			name = fmt.Sprintf("%s (%s)", f.Name, simpleName(javalang.TypeName(sig)))
			evalName = ""
		}
		if c.evalName == "" {
			evalName = ""
		}
		vals[i] = named{name, evalName, values[i]}
		if namer != nil {
			// A lazy property's value, once initialized; its expression is the property's.
			propEval := ""
			if evalName != "" {
				propEval = c.evalName + "." + name
			}
			vals[i] = d.unwrapLazy(ctx, fl, f.Name, vals[i], propEval)
		}
	}
	return d.variables(ctx, vals)
}

func (c *arrayVars) children(ctx context.Context, d *debuggee, filter string, start, count int) ([]godap.Variable, error) {
	if filter == "named" {
		return nil, nil
	}
	if start < 0 || start > c.length {
		return nil, fmt.Errorf("start %d is outside the array of length %d", start, c.length)
	}
	if count <= 0 || start+count > c.length {
		count = c.length - start
	}
	count = min(count, maxUnpaged)
	if count == 0 {
		return nil, nil
	}
	values, err := d.vm.ArrayValues(ctx, c.arr, start, count)
	if err != nil {
		return nil, err
	}
	vals := make([]named, len(values))
	for i, v := range values {
		idx := strconv.Itoa(start + i)
		evalName := ""
		if c.evalName != "" {
			evalName = c.evalName + "[" + idx + "]"
		}
		vals[i] = named{"[" + idx + "]", evalName, v}
	}
	return d.variables(ctx, vals)
}

package mirror

import (
	"context"
	"fmt"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
)

// Values: reading fields, statics, strings and arrays. These methods with
// Invoke make up the Inspector presentation reads through; the owner adds
// the policy of when methods may run (see Inspector.Invoke).

// Read reads field f, of obj unless f is static.
func (m *VM) Read(ctx context.Context, obj jdwp.ObjectID, f Field) (jdwp.Value, error) {
	var vals []jdwp.Value
	var err error
	if f.Static() {
		vals, err = m.conn.StaticValues(ctx, f.Class, []jdwp.FieldID{f.ID})
	} else {
		vals, err = m.conn.FieldValues(ctx, obj, []jdwp.FieldID{f.ID})
	}
	if err != nil {
		return jdwp.Value{}, err
	}
	return vals[0], nil
}

// Member reads the field called name of obj, instance or static, searching
// its superclasses; ok is false when there is none.
func (m *VM) Member(ctx context.Context, obj jdwp.ObjectID, name string) (v jdwp.Value, ok bool, err error) {
	t, _, err := m.ObjectType(ctx, obj)
	if err != nil {
		return jdwp.Value{}, false, err
	}
	f, ok, err := m.FindField(ctx, t, name)
	if err != nil || !ok {
		return jdwp.Value{}, false, err
	}
	v, err = m.Read(ctx, obj, f)
	return v, err == nil, err
}

// StaticField reads the static field called name of t, its superclasses or
// the interfaces they implement (interface constants); ok is false when
// there is none.
func (m *VM) StaticField(ctx context.Context, t jdwp.ReferenceTypeID, name string) (v jdwp.Value, ok bool, err error) {
	f, ok, err := m.FindField(ctx, t, name)
	if err != nil {
		return jdwp.Value{}, false, err
	}
	if !ok || !f.Static() {
		ifaces, err := m.conn.Interfaces(ctx, t)
		if err != nil {
			return jdwp.Value{}, false, err
		}
		ok = false
		for _, i := range ifaces {
			if f, ok, _ = m.FindField(ctx, i, name); ok && f.Static() {
				break
			}
			ok = false
		}
		if !ok {
			return jdwp.Value{}, false, nil
		}
	}
	v, err = m.Read(ctx, 0, f)
	return v, err == nil, err
}

// Static reads the static field called name of the loaded class of
// signature sig (the first loaded, if several loaders loaded one); ok is
// false when there is no such class or field.
func (m *VM) Static(ctx context.Context, sig, name string) (jdwp.Value, bool, error) {
	cs, err := m.ClassesBySignature(ctx, sig)
	if err != nil || len(cs) == 0 {
		return jdwp.Value{}, false, err
	}
	return m.StaticField(ctx, cs[0].ID, name)
}

// TypeOf returns an object's runtime type signature.
func (m *VM) TypeOf(ctx context.Context, obj jdwp.ObjectID) (string, error) {
	_, sig, err := m.ObjectType(ctx, obj)
	return sig, err
}

// Field reads the instance field called name of obj, searching its
// superclasses; ok is false when there is none.
func (m *VM) Field(ctx context.Context, obj jdwp.ObjectID, name string) (jdwp.Value, bool, error) {
	t, _, err := m.ObjectType(ctx, obj)
	if err != nil {
		return jdwp.Value{}, false, err
	}
	f, ok, err := m.FindField(ctx, t, name)
	if err != nil || !ok || f.Static() {
		return jdwp.Value{}, false, err
	}
	v, err := m.Read(ctx, obj, f)
	if err != nil {
		return jdwp.Value{}, false, err
	}
	return v, true, nil
}

// Fields reads every instance field of obj (synthetic ones left out),
// superclass fields last.
func (m *VM) Fields(ctx context.Context, obj jdwp.ObjectID) ([]NamedValue, error) {
	t, _, err := m.ObjectType(ctx, obj)
	if err != nil {
		return nil, err
	}
	chain, err := m.FieldChain(ctx, t)
	if err != nil {
		return nil, err
	}
	var ids []jdwp.FieldID
	var out []NamedValue
	for _, f := range chain {
		if f.ModBits&(jdwp.AccStatic|jdwp.AccSynthetic) == 0 {
			ids = append(ids, f.ID)
			out = append(out, NamedValue{Name: f.Name})
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	vals, err := m.conn.FieldValues(ctx, obj, ids)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].Value = vals[i]
	}
	return out, nil
}

// ArrayValues reads count elements of an array from start.
func (m *VM) ArrayValues(ctx context.Context, arr jdwp.ObjectID, start, count int) ([]jdwp.Value, error) {
	return m.conn.ArrayValues(ctx, arr, int32(start), int32(count))
}

// ClassName returns the Java name of the type a java.lang.Class reflects.
func (m *VM) ClassName(ctx context.Context, class jdwp.ObjectID) (string, error) {
	ci, err := m.conn.ReflectedType(ctx, jdwp.ClassObjectID(class))
	if err != nil {
		return "", err
	}
	sig, err := m.Signature(ctx, ci.ID)
	if err != nil {
		return "", err
	}
	return javalang.TypeName(sig), nil
}

// Overrides reports whether type sig declares or inherits the instance
// method name+desc from a class other than java.lang.Object.
func (m *VM) Overrides(ctx context.Context, sig, name, desc string) (bool, error) {
	t, err := m.ClassBySignature(ctx, sig)
	if err != nil {
		return false, err
	}
	ms, err := m.MethodsNamed(ctx, t, name)
	if err != nil {
		return false, err
	}
	for _, mi := range ms {
		if mi.Signature == desc && !mi.Static() {
			return mi.Class != "Ljava/lang/Object;", nil
		}
	}
	return false, nil
}

// DeclaredMethodNames lists the names of the methods the loaded class of
// signature sig declares itself (read once per class).
func (m *VM) DeclaredMethodNames(ctx context.Context, sig string) ([]string, error) {
	t, err := m.ClassBySignature(ctx, sig)
	if err != nil {
		return nil, err
	}
	ms, err := m.Methods(ctx, t)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(ms))
	for i, mi := range ms {
		names[i] = mi.Name
	}
	return names, nil
}

// InstanceMethod finds the instance method name+desc of obj's type.
func (m *VM) InstanceMethod(ctx context.Context, obj jdwp.ObjectID, name, desc string) (Method, error) {
	t, _, err := m.ObjectType(ctx, obj)
	if err != nil {
		return Method{}, err
	}
	ms, err := m.MethodsNamed(ctx, t, name)
	if err != nil {
		return Method{}, err
	}
	for _, mi := range ms {
		if mi.Signature == desc && !mi.Static() {
			return mi, nil
		}
	}
	return Method{}, fmt.Errorf("%s has no method %s%s", javalang.TypeName(desc), name, desc)
}

// ReadFields reads instance fields of obj with one command.
func (m *VM) ReadFields(ctx context.Context, obj jdwp.ObjectID, ids []jdwp.FieldID) ([]jdwp.Value, error) {
	return m.conn.FieldValues(ctx, obj, ids)
}

// ReadStatics reads static fields of t with one command.
func (m *VM) ReadStatics(ctx context.Context, t jdwp.ReferenceTypeID, ids []jdwp.FieldID) ([]jdwp.Value, error) {
	return m.conn.StaticValues(ctx, t, ids)
}

// Write stores val in field f, of obj unless f is static.
func (m *VM) Write(ctx context.Context, obj jdwp.ObjectID, f Field, val jdwp.Value) error {
	if f.Static() {
		return m.conn.SetStaticValues(ctx, f.Class, []jdwp.FieldValue{{Field: f.ID, Value: val}})
	}
	return m.conn.SetFieldValues(ctx, obj, []jdwp.FieldValue{{Field: f.ID, Value: val}})
}

// SetElements stores vals in an array from index start.
func (m *VM) SetElements(ctx context.Context, arr jdwp.ObjectID, start int, vals []jdwp.Value) error {
	return m.conn.SetArrayValues(ctx, arr, int32(start), vals)
}

// NewString creates a java.lang.String in the VM.
func (m *VM) NewString(ctx context.Context, s string) (jdwp.ObjectID, error) {
	id, err := m.conn.CreateString(ctx, s)
	return jdwp.ObjectID(id), err
}

// NewArray creates an array of loaded array type t with n zero elements.
func (m *VM) NewArray(ctx context.Context, t jdwp.ReferenceTypeID, n int) (jdwp.TaggedObjectID, error) {
	return m.conn.NewArray(ctx, t, int32(n))
}

// ClassObject returns the java.lang.Class object of a loaded type.
func (m *VM) ClassObject(ctx context.Context, t jdwp.ReferenceTypeID) (jdwp.ObjectID, error) {
	id, err := m.conn.ClassObject(ctx, t)
	return jdwp.ObjectID(id), err
}

// MonitorInfo returns who owns an object's monitor and who waits for it.
func (m *VM) MonitorInfo(ctx context.Context, obj jdwp.ObjectID) (jdwp.MonitorInfo, error) {
	return m.conn.MonitorInfo(ctx, obj)
}

package mirror

import (
	"context"
	"fmt"
	"sync"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/smap"
	"github.com/rs/zerolog"
)

// VM mirrors one VM over its JDWP connection: reference types with their
// methods, fields, line and variable tables, the type hierarchy, classes by
// signature, threads and frames, values. It runs no methods (the debugger
// layer's invocation road does) and knows no suspension policy. What never changes while a class is loaded is cached, each
// cache behind its own lock; Redefined drops what a redefinition changes.
// Safe for concurrent use.
type VM struct {
	conn *jdwp.Conn
	cfg  Config

	versionMu sync.Mutex
	version   *jdwp.VersionInfo // VirtualMachine.Version, once read

	sigs       Memo[jdwp.ReferenceTypeID, string]
	methods    Memo[jdwp.ReferenceTypeID, []jdwp.MethodInfo]
	lines      Memo[methodKey, Lines]
	vars       Memo[methodKey, Variables]
	fields     Memo[jdwp.ReferenceTypeID, []jdwp.FieldInfo]
	chains     Memo[jdwp.ReferenceTypeID, []Field] // FieldChain
	supers     Memo[jdwp.ReferenceTypeID, jdwp.ReferenceTypeID]
	ifaces     Memo[jdwp.ReferenceTypeID, []jdwp.ReferenceTypeID]
	objType    Memo[jdwp.ObjectID, jdwp.ReferenceTypeID]
	bySig      Memo[string, jdwp.ReferenceTypeID]
	subtypes   Memo[subtypeKey, bool]
	sysThreads Memo[jdwp.ThreadID, bool]
	smaps      Memo[jdwp.ReferenceTypeID, *smap.SMAP]
	sdes       Memo[jdwp.ReferenceTypeID, string]
	srcFiles   Memo[jdwp.ReferenceTypeID, string]

	gensMu sync.Mutex
	gens   map[jdwp.ThreadID]int // frame generations (invoke.go)
	revs   map[jdwp.ThreadID]int // frame revisions (invoke.go)

	held    held         // facts of a held VM (held.go)
	strs    kept[string] // strings' characters, by id
	arrLens kept[int]    // arrays' lengths, by id
}

// Config is what a VM needs from its owner.
type Config struct {
	// Context is the owner's (the session's); nil means
	// context.Background.
	Context context.Context
	// Go starts a goroutine the owner waits for when it ends; nil means go f().
	Go func(f func())
	// Log receives what the mirror has to say; the zero logger drops it.
	Log zerolog.Logger
}

// New returns the mirror of the VM at the end of conn.
func New(conn *jdwp.Conn, cfg Config) *VM {
	if cfg.Context == nil {
		cfg.Context = context.Background()
	}
	if cfg.Go == nil {
		cfg.Go = func(f func()) { go f() }
	}
	return &VM{conn: conn, cfg: cfg}
}

// Conn is the JDWP connection the mirror reads.
func (m *VM) Conn() *jdwp.Conn { return m.conn }

type methodKey struct {
	class  jdwp.ReferenceTypeID
	method jdwp.MethodID
}

type subtypeKey struct {
	t   jdwp.ReferenceTypeID
	sup string
}

// Lines is a method's line table; Absent when compiled without -g, or native.
type Lines struct {
	jdwp.LineTable
	Absent bool
}

// Variables is a method's variable table; Absent when compiled without -g,
// or native.
type Variables struct {
	jdwp.VariableTable
	Absent bool
}

// Absent reports whether err is the VM saying the information is not there
// (no -g, native or abstract method).
func Absent(err error) bool {
	c := jdwp.Code(err)
	return c == jdwp.ErrAbsentInformation || c == jdwp.ErrNativeMethod
}

// Redefined drops what the redefinition of types changed: their methods,
// fields, line and variable tables, source maps.
func (m *VM) Redefined(types ...jdwp.ReferenceTypeID) {
	set := map[jdwp.ReferenceTypeID]bool{}
	for _, t := range types {
		set[t] = true
		m.methods.Forget(t)
		m.fields.Forget(t)
		m.smaps.Forget(t)
		m.sdes.Forget(t)
		m.srcFiles.Forget(t)
	}
	m.lines.ForgetIf(func(k methodKey) bool { return set[k.class] })
	m.vars.ForgetIf(func(k methodKey) bool { return set[k.class] })
	if len(types) > 0 {
		// A class's field chain holds its superclasses': every chain goes
		// (a structural redefinition, ART's, may add fields).
		m.chains.ForgetIf(func(jdwp.ReferenceTypeID) bool { return true })
	}
}

// Unloaded drops what the mirror knows of the class with signature sig after
// the VM unloaded it (a CLASS_UNLOAD event): the class by signature, the
// subtype answers about it, and, when the mirror knew its id, everything
// cached of that type. It returns that id (0 when unknown) so the owner can
// drop its own caches.
func (m *VM) Unloaded(sig string) jdwp.ReferenceTypeID {
	var t jdwp.ReferenceTypeID
	m.bySig.mu.Lock()
	if id, ok := m.bySig.m[sig]; ok {
		t = id
		delete(m.bySig.m, sig)
	}
	m.bySig.mu.Unlock()
	m.subtypes.ForgetIf(func(k subtypeKey) bool { return k.sup == sig || t != 0 && k.t == t })
	if t != 0 {
		m.Redefined(t)
		m.sigs.Forget(t)
		m.supers.Forget(t)
		m.ifaces.Forget(t)
	}
	return t
}

// Signature returns a reference type's JNI signature.
func (m *VM) Signature(ctx context.Context, t jdwp.ReferenceTypeID) (string, error) {
	return m.sigs.Get(t, func() (string, error) {
		sig, err := m.conn.Signature(ctx, t)
		if err == nil {
			m.bySig.Put(sig, t) // a loaded type of that signature: Subtype needs no lookup
		}
		return sig, err
	})
}

// Methods returns the methods a reference type declares.
func (m *VM) Methods(ctx context.Context, t jdwp.ReferenceTypeID) ([]jdwp.MethodInfo, error) {
	return m.methods.Get(t, func() ([]jdwp.MethodInfo, error) { return m.conn.Methods(ctx, t) })
}

// Method returns one method of t.
func (m *VM) Method(ctx context.Context, t jdwp.ReferenceTypeID, id jdwp.MethodID) (jdwp.MethodInfo, error) {
	ms, err := m.Methods(ctx, t)
	if err != nil {
		return jdwp.MethodInfo{}, err
	}
	for _, mi := range ms {
		if mi.ID == id {
			return mi, nil
		}
	}
	return jdwp.MethodInfo{}, fmt.Errorf("method %d not found in its class", id)
}

// LineTable returns a method's line table.
func (m *VM) LineTable(ctx context.Context, t jdwp.ReferenceTypeID, id jdwp.MethodID) (Lines, error) {
	if id == 0 { // an obsolete method (see Obsolete): JDWP has no table for it
		return Lines{Absent: true}, nil
	}
	return m.lines.Get(methodKey{t, id}, func() (Lines, error) {
		lt, err := m.conn.LineTable(ctx, t, id)
		if Absent(err) {
			return Lines{Absent: true}, nil
		}
		return Lines{LineTable: lt}, err
	})
}

// VariableTable returns a method's variable table.
func (m *VM) VariableTable(ctx context.Context, t jdwp.ReferenceTypeID, id jdwp.MethodID) (Variables, error) {
	if id == 0 { // an obsolete method (see Obsolete): its frame shows no locals
		return Variables{Absent: true}, nil
	}
	return m.vars.Get(methodKey{t, id}, func() (Variables, error) {
		vt, err := m.conn.VariableTable(ctx, t, id)
		if Absent(err) {
			return Variables{Absent: true}, nil
		}
		return Variables{VariableTable: vt}, err
	})
}

// DeclaredFields returns the fields a reference type declares.
func (m *VM) DeclaredFields(ctx context.Context, t jdwp.ReferenceTypeID) ([]jdwp.FieldInfo, error) {
	return m.fields.Get(t, func() ([]jdwp.FieldInfo, error) { return m.conn.Fields(ctx, t) })
}

// Superclass returns a class's superclass; 0 for java.lang.Object, an
// interface or an array type.
func (m *VM) Superclass(ctx context.Context, t jdwp.ReferenceTypeID) (jdwp.ReferenceTypeID, error) {
	return m.supers.Get(t, func() (jdwp.ReferenceTypeID, error) {
		sup, err := m.conn.Superclass(ctx, t)
		if jdwp.Code(err) == jdwp.ErrInvalidClass { // an interface or array type
			return 0, nil
		}
		return sup, err
	})
}

// Interfaces returns the interfaces a reference type directly implements.
func (m *VM) Interfaces(ctx context.Context, t jdwp.ReferenceTypeID) ([]jdwp.ReferenceTypeID, error) {
	return m.ifaces.Get(t, func() ([]jdwp.ReferenceTypeID, error) { return m.conn.Interfaces(ctx, t) })
}

// ObjectType returns an object's runtime type and its signature.
func (m *VM) ObjectType(ctx context.Context, obj jdwp.ObjectID) (jdwp.ReferenceTypeID, string, error) {
	t, err := m.objType.Get(obj, func() (jdwp.ReferenceTypeID, error) {
		ci, err := m.conn.ObjectType(ctx, obj)
		return ci.ID, err
	})
	if err != nil {
		return 0, "", err
	}
	sig, err := m.Signature(ctx, t)
	return t, sig, err
}

// Field is a field and the class declaring it.
type Field struct {
	jdwp.FieldInfo
	Class jdwp.ReferenceTypeID
}

// Static reports whether the field is static.
func (f Field) Static() bool { return f.ModBits&jdwp.AccStatic != 0 }

// FieldChain returns the fields of t and its superclasses, subclass first.
// The superclasses are found first (usually cached by then: a value's type
// was tested), then every class's fields asked at once: one round trip on
// a slow link where class by class cost one per class. The chain is kept
// per type until a class is redefined (Redefined): a field read
// by name costs no allocation but its value's (a coroutine list reads
// thousands). Callers must not change it.
func (m *VM) FieldChain(ctx context.Context, t jdwp.ReferenceTypeID) ([]Field, error) {
	return m.chains.Get(t, func() ([]Field, error) { return m.fieldChain(ctx, t) })
}

func (m *VM) fieldChain(ctx context.Context, t jdwp.ReferenceTypeID) ([]Field, error) {
	var chain []jdwp.ReferenceTypeID
	for c := t; c != 0; {
		chain = append(chain, c)
		var err error
		if c, err = m.Superclass(ctx, c); err != nil {
			return nil, err
		}
	}
	fields := make([][]jdwp.FieldInfo, len(chain))
	if err := Parallel(len(chain), func(i int) error {
		var err error
		fields[i], err = m.DeclaredFields(ctx, chain[i])
		return err
	}); err != nil {
		return nil, err
	}
	var out []Field
	for i, fs := range fields {
		for _, f := range fs {
			out = append(out, Field{FieldInfo: f, Class: chain[i]})
		}
	}
	return out, nil
}

// FindField finds a field by name in t and its superclasses, the most
// derived declaration first.
func (m *VM) FindField(ctx context.Context, t jdwp.ReferenceTypeID, name string) (Field, bool, error) {
	chain, err := m.FieldChain(ctx, t)
	if err != nil {
		return Field{}, false, err
	}
	for _, f := range chain {
		if f.Name == name {
			return f, true, nil
		}
	}
	return Field{}, false, nil
}

// parallelWidth bounds Parallel's commands in flight. Each batch of that
// many costs a round trip on the link, so it is set well above the usual
// counts (threads, frames, an array page's elements): 200 thread names once
// took 4 sequential round trips at 64, one at this width. A few hundred
// small commands are a few kilobytes queued in the VM's socket.
const parallelWidth = 1024

// Parallel runs f(0..n-1) with bounded concurrency, so many small JDWP
// commands are in flight at once, and returns the first error.
func Parallel(n int, f func(i int) error) error {
	if n == 1 {
		return f(0)
	}
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	sem := make(chan struct{}, parallelWidth)
	for i := 0; i < n; i++ {
		sem <- struct{}{}
		wg.Add(1)
		go func(i int) {
			defer func() { <-sem; wg.Done() }()
			if err := f(i); err != nil {
				once.Do(func() { first = err })
			}
		}(i)
	}
	wg.Wait()
	return first
}

// AllClasses lists the loaded reference types. Their signatures are kept,
// and each signature's type (the first loaded): an object's type met later
// costs no VirtualMachine.Signature round trip, nor a test of its
// supertypes (Subtype) a VirtualMachine.ClassesBySignature.
func (m *VM) AllClasses(ctx context.Context) ([]jdwp.ClassInfo, error) {
	all, err := m.conn.AllClasses(ctx)
	for _, c := range all {
		m.sigs.Put(c.ID, c.Signature)
		m.bySig.Put(c.Signature, c.ID)
	}
	return all, err
}

// Loaded lists the loaded reference types with signature sig (one per
// class loader that loaded it).
func (m *VM) Loaded(ctx context.Context, sig string) ([]jdwp.ClassInfo, error) {
	return m.conn.ClassesBySignature(ctx, sig)
}

// SourceFile returns the SourceFile attribute of a reference type; Absent
// reports the error when it has none.
func (m *VM) SourceFile(ctx context.Context, t jdwp.ReferenceTypeID) (string, error) {
	return m.srcFiles.Get(t, func() (string, error) { return m.conn.SourceFile(ctx, t) })
}

// Modifiers returns a reference type's access flags.
func (m *VM) Modifiers(ctx context.Context, t jdwp.ReferenceTypeID) (int32, error) {
	return m.conn.Modifiers(ctx, t)
}

// Bytecodes returns a method's bytecode.
func (m *VM) Bytecodes(ctx context.Context, t jdwp.ReferenceTypeID, id jdwp.MethodID) ([]byte, error) {
	return m.conn.Bytecodes(ctx, t, id)
}

// ConstantPool returns a reference type's constant pool: its entry count
// and bytes as the class file has them.
func (m *VM) ConstantPool(ctx context.Context, t jdwp.ReferenceTypeID) (int32, []byte, error) {
	return m.conn.ConstantPool(ctx, t)
}

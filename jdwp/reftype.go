package jdwp

import "context"

// FieldInfo describes a field of a reference type.
type FieldInfo struct {
	ID        FieldID
	Name      string
	Signature string
	Generic   string
	ModBits   int32
}

// MethodInfo describes a method of a reference type.
type MethodInfo struct {
	ID        MethodID
	Name      string
	Signature string
	Generic   string
	ModBits   int32
}

// Access flags used in ModBits.
const (
	AccPublic    int32 = 0x0001
	AccPrivate   int32 = 0x0002
	AccProtected int32 = 0x0004
	AccStatic    int32 = 0x0008
	AccFinal     int32 = 0x0010
	AccBridge    int32 = 0x0040 // a method: a bridge the compiler made (a field: volatile)
	AccNative    int32 = 0x0100
	AccAbstract  int32 = 0x0400
	AccSynthetic int32 = -0x10000000 // 0xf0000000: JDWP marks synthetic members with these bits
)

// Signature returns the JNI signature of a type (ReferenceType.Signature).
func (c *Conn) Signature(ctx context.Context, t ReferenceTypeID) (sig string, err error) {
	err = c.do(ctx, CmdRefTypeSignature, func(w *Writer) { w.ReferenceTypeID(t) }, func(r *Reader) { sig = r.String() })
	return sig, err
}

// SignatureWithGeneric returns the JNI and generic signatures of a type.
func (c *Conn) SignatureWithGeneric(ctx context.Context, t ReferenceTypeID) (sig, generic string, err error) {
	err = c.do(ctx, CmdRefTypeSignatureWithGeneric, func(w *Writer) { w.ReferenceTypeID(t) }, func(r *Reader) { sig, generic = r.String(), r.String() })
	return sig, generic, err
}

// ClassLoader returns the loader of a type (0 for the bootstrap loader).
func (c *Conn) ClassLoader(ctx context.Context, t ReferenceTypeID) (id ClassLoaderID, err error) {
	err = c.do(ctx, CmdRefTypeClassLoader, func(w *Writer) { w.ReferenceTypeID(t) }, func(r *Reader) { id = r.ObjectID() })
	return id, err
}

// Modifiers returns a type's access flags.
func (c *Conn) Modifiers(ctx context.Context, t ReferenceTypeID) (mods int32, err error) {
	err = c.do(ctx, CmdRefTypeModifiers, func(w *Writer) { w.ReferenceTypeID(t) }, func(r *Reader) { mods = r.Int32() })
	return mods, err
}

func (c *Conn) fields(ctx context.Context, cmd Cmd, t ReferenceTypeID, generic bool) (out []FieldInfo, err error) {
	err = c.do(ctx, cmd, func(w *Writer) { w.ReferenceTypeID(t) }, func(r *Reader) { out = readFields(r, generic) })
	return out, err
}

func readFields(r *Reader, generic bool) []FieldInfo {
	n := r.Count(r.Sizes.FieldID + 12)
	out := make([]FieldInfo, 0, n)
	for i := 0; i < n && r.Err() == nil; i++ {
		f := FieldInfo{ID: r.FieldID(), Name: r.String(), Signature: r.String()}
		if generic {
			f.Generic = r.String()
		}
		f.ModBits = r.Int32()
		out = append(out, f)
	}
	return out
}

func (c *Conn) methods(ctx context.Context, cmd Cmd, t ReferenceTypeID, generic bool) (out []MethodInfo, err error) {
	err = c.do(ctx, cmd, func(w *Writer) { w.ReferenceTypeID(t) }, func(r *Reader) { out = readMethods(r, generic) })
	return out, err
}

func readMethods(r *Reader, generic bool) []MethodInfo {
	n := r.Count(r.Sizes.MethodID + 12)
	out := make([]MethodInfo, 0, n)
	for i := 0; i < n && r.Err() == nil; i++ {
		m := MethodInfo{ID: r.MethodID(), Name: r.String(), Signature: r.String()}
		if generic {
			m.Generic = r.String()
		}
		m.ModBits = r.Int32()
		out = append(out, m)
	}
	return out
}

// Fields returns the fields declared by a type (not inherited ones).
func (c *Conn) Fields(ctx context.Context, t ReferenceTypeID) ([]FieldInfo, error) {
	return c.fields(ctx, CmdRefTypeFields, t, false)
}

// FieldsWithGeneric returns the declared fields with generic signatures.
func (c *Conn) FieldsWithGeneric(ctx context.Context, t ReferenceTypeID) ([]FieldInfo, error) {
	return c.fields(ctx, CmdRefTypeFieldsWithGeneric, t, true)
}

// Methods returns the methods declared by a type (not inherited ones).
func (c *Conn) Methods(ctx context.Context, t ReferenceTypeID) ([]MethodInfo, error) {
	return c.methods(ctx, CmdRefTypeMethods, t, false)
}

// MethodsWithGeneric returns the declared methods with generic signatures.
func (c *Conn) MethodsWithGeneric(ctx context.Context, t ReferenceTypeID) ([]MethodInfo, error) {
	return c.methods(ctx, CmdRefTypeMethodsWithGeneric, t, true)
}

func writeFieldIDs(w *Writer, fields []FieldID) {
	w.Int32(int32(len(fields)))
	for _, f := range fields {
		w.FieldID(f)
	}
}

func readValues(r *Reader) []Value {
	n := r.Count(1)
	out := make([]Value, 0, n)
	for i := 0; i < n && r.Err() == nil; i++ {
		out = append(out, r.Value())
	}
	return out
}

// StaticValues returns the values of static fields of a type (ReferenceType.GetValues).
func (c *Conn) StaticValues(ctx context.Context, t ReferenceTypeID, fields []FieldID) (out []Value, err error) {
	err = c.do(ctx, CmdRefTypeGetValues, func(w *Writer) { w.ReferenceTypeID(t); writeFieldIDs(w, fields) },
		func(r *Reader) { out = readValues(r) })
	return out, err
}

// SourceFile returns the source file name of a type (ABSENT_INFORMATION when unknown).
func (c *Conn) SourceFile(ctx context.Context, t ReferenceTypeID) (name string, err error) {
	err = c.do(ctx, CmdRefTypeSourceFile, func(w *Writer) { w.ReferenceTypeID(t) }, func(r *Reader) { name = r.String() })
	return name, err
}

// NestedTypes returns the types directly nested in a type.
func (c *Conn) NestedTypes(ctx context.Context, t ReferenceTypeID) (out []ClassInfo, err error) {
	err = c.do(ctx, CmdRefTypeNestedTypes, func(w *Writer) { w.ReferenceTypeID(t) }, func(r *Reader) { out = readTaggedRefTypes(r) })
	return out, err
}

// Status returns a type's class status bits.
func (c *Conn) Status(ctx context.Context, t ReferenceTypeID) (s ClassStatus, err error) {
	err = c.do(ctx, CmdRefTypeStatus, func(w *Writer) { w.ReferenceTypeID(t) }, func(r *Reader) { s = ClassStatus(r.Int32()) })
	return s, err
}

// Interfaces returns the interfaces a type directly implements.
func (c *Conn) Interfaces(ctx context.Context, t ReferenceTypeID) (out []InterfaceID, err error) {
	err = c.do(ctx, CmdRefTypeInterfaces, func(w *Writer) { w.ReferenceTypeID(t) }, func(r *Reader) { out = readRefTypeIDs(r) })
	return out, err
}

// ClassObject returns the java.lang.Class instance of a type.
func (c *Conn) ClassObject(ctx context.Context, t ReferenceTypeID) (id ClassObjectID, err error) {
	err = c.do(ctx, CmdRefTypeClassObject, func(w *Writer) { w.ReferenceTypeID(t) }, func(r *Reader) { id = r.ObjectID() })
	return id, err
}

// SourceDebugExtension returns a type's SMAP (JSR-45) attribute.
func (c *Conn) SourceDebugExtension(ctx context.Context, t ReferenceTypeID) (ext string, err error) {
	err = c.do(ctx, CmdRefTypeSourceDebugExtension, func(w *Writer) { w.ReferenceTypeID(t) }, func(r *Reader) { ext = r.String() })
	return ext, err
}

// Instances returns up to max live instances of a type (0 means all). The
// VM holds each id it sends until DisposeObjects; if ctx ends before the
// reply, its ids are given back when it comes.
func (c *Conn) Instances(ctx context.Context, t ReferenceTypeID, max int32) (out []TaggedObjectID, err error) {
	err = c.doObjects(ctx, CmdRefTypeInstances, func(w *Writer) { w.ReferenceTypeID(t); w.Int32(max) }, func(r *Reader) { out = readTaggedObjects(r) })
	return out, err
}

func readTaggedObjects(r *Reader) []TaggedObjectID {
	n := r.Count(1 + r.Sizes.ObjectID)
	out := make([]TaggedObjectID, 0, n)
	for i := 0; i < n && r.Err() == nil; i++ {
		out = append(out, r.TaggedObjectID())
	}
	return out
}

// ClassFileVersion returns a type's class file major and minor version.
func (c *Conn) ClassFileVersion(ctx context.Context, t ReferenceTypeID) (major, minor int32, err error) {
	err = c.do(ctx, CmdRefTypeClassFileVersion, func(w *Writer) { w.ReferenceTypeID(t) }, func(r *Reader) { major, minor = r.Int32(), r.Int32() })
	return major, minor, err
}

// ConstantPool returns a type's constant pool count and raw bytes.
func (c *Conn) ConstantPool(ctx context.Context, t ReferenceTypeID) (count int32, bytes []byte, err error) {
	err = c.do(ctx, CmdRefTypeConstantPool, func(w *Writer) { w.ReferenceTypeID(t) }, func(r *Reader) {
		count = r.Int32()
		n := r.Count(1)
		bytes = append([]byte(nil), r.take(n)...)
	})
	return count, bytes, err
}

// Module returns the module of a type.
func (c *Conn) Module(ctx context.Context, t ReferenceTypeID) (id ModuleID, err error) {
	err = c.do(ctx, CmdRefTypeModule, func(w *Writer) { w.ReferenceTypeID(t) }, func(r *Reader) { id = r.ObjectID() })
	return id, err
}

// Superclass returns a class's superclass (0 for java.lang.Object).
func (c *Conn) Superclass(ctx context.Context, class ClassID) (id ClassID, err error) {
	err = c.do(ctx, CmdClassTypeSuperclass, func(w *Writer) { w.ReferenceTypeID(class) }, func(r *Reader) { id = r.ReferenceTypeID() })
	return id, err
}

// FieldValue pairs a field with a value to set.
type FieldValue struct {
	Field FieldID
	Value Value
}

// SetStaticValues sets static fields of a class (ClassType.SetValues).
func (c *Conn) SetStaticValues(ctx context.Context, class ClassID, values []FieldValue) error {
	return c.do(ctx, CmdClassTypeSetValues, func(w *Writer) {
		w.ReferenceTypeID(class)
		w.Int32(int32(len(values)))
		for _, v := range values {
			w.FieldID(v.Field)
			w.UntaggedValue(v.Value)
		}
	}, nil)
}

// InvokeResult is what a method invocation returns: a value, or the exception thrown.
type InvokeResult struct {
	Value     Value
	Exception TaggedObjectID
}

func writeArgs(w *Writer, args []Value, opts InvokeOptions) {
	w.Int32(int32(len(args)))
	for _, a := range args {
		w.Value(a)
	}
	w.Int32(int32(opts))
}

func readInvokeResult(r *Reader) InvokeResult {
	return InvokeResult{Value: r.Value(), Exception: r.TaggedObjectID()}
}

// InvokeStatic invokes a static method of a class in a thread suspended by an event.
func (c *Conn) InvokeStatic(ctx context.Context, class ClassID, thread ThreadID, method MethodID, args []Value, opts InvokeOptions) (res InvokeResult, err error) {
	err = c.do(ctx, CmdClassTypeInvokeMethod, func(w *Writer) {
		w.ReferenceTypeID(class)
		w.ObjectID(thread)
		w.MethodID(method)
		writeArgs(w, args, opts)
	}, func(r *Reader) { res = readInvokeResult(r) })
	return res, err
}

// NewInstance creates an object by running a constructor in a suspended thread;
// the result's Value is the new object.
func (c *Conn) NewInstance(ctx context.Context, class ClassID, thread ThreadID, ctor MethodID, args []Value, opts InvokeOptions) (res InvokeResult, err error) {
	err = c.do(ctx, CmdClassTypeNewInstance, func(w *Writer) {
		w.ReferenceTypeID(class)
		w.ObjectID(thread)
		w.MethodID(ctor)
		writeArgs(w, args, opts)
	}, func(r *Reader) {
		obj := r.TaggedObjectID()
		res = InvokeResult{Value: Value{Tag: obj.Tag, Bits: uint64(obj.ID)}, Exception: r.TaggedObjectID()}
	})
	return res, err
}

// NewArray creates an array of an array type with length elements.
func (c *Conn) NewArray(ctx context.Context, arrayType ArrayTypeID, length int32) (arr TaggedObjectID, err error) {
	err = c.do(ctx, CmdArrayTypeNewInstance, func(w *Writer) { w.ReferenceTypeID(arrayType); w.Int32(length) },
		func(r *Reader) { arr = r.TaggedObjectID() })
	return arr, err
}

// InvokeInterfaceStatic invokes a static method of an interface (InterfaceType.InvokeMethod).
func (c *Conn) InvokeInterfaceStatic(ctx context.Context, iface InterfaceID, thread ThreadID, method MethodID, args []Value, opts InvokeOptions) (res InvokeResult, err error) {
	err = c.do(ctx, CmdInterfaceTypeInvokeMethod, func(w *Writer) {
		w.ReferenceTypeID(iface)
		w.ObjectID(thread)
		w.MethodID(method)
		writeArgs(w, args, opts)
	}, func(r *Reader) { res = readInvokeResult(r) })
	return res, err
}

// LineTable is a method's line number table.
type LineTable struct {
	Start, End uint64 // code index range of the method; the spec gives -1 (uint64 max) for native methods, but HotSpot answers NATIVE_METHOD
	Lines      []LineEntry
}

// LineEntry maps a code index to a source line.
type LineEntry struct {
	CodeIndex uint64
	Line      int32
}

// LineFor returns the source line of a code index: the entry with the largest code
// index not past it, or -1.
func (t *LineTable) LineFor(index uint64) int32 {
	line, best := int32(-1), uint64(0)
	for _, e := range t.Lines {
		if e.CodeIndex <= index && (line == -1 || e.CodeIndex >= best) {
			line, best = e.Line, e.CodeIndex
		}
	}
	return line
}

// noMethod is the error of a Method command asked about method id 0, which
// is how HotSpot names the method of an obsolete frame (one a redefine
// replaced). It is never sent: HotSpot's agent aborts the whole VM on it
// ("JDWP exit error JVMTI_ERROR_INVALID_METHODID ... on checking for a
// native interface"), seen with VariableTable on JDK 17.0.21.
func noMethod(cmd Cmd) error {
	return &CommandError{Command: cmd.String() + " (method id 0: an obsolete method)", Code: ErrInvalidMethodID}
}

func writeMethod(w *Writer, t ReferenceTypeID, m MethodID) {
	w.ReferenceTypeID(t)
	w.MethodID(m)
}

// LineTable returns a method's line table (ABSENT_INFORMATION without -g).
func (c *Conn) LineTable(ctx context.Context, t ReferenceTypeID, m MethodID) (lt LineTable, err error) {
	if m == 0 {
		return lt, noMethod(CmdMethodLineTable)
	}
	err = c.do(ctx, CmdMethodLineTable, func(w *Writer) { writeMethod(w, t, m) }, func(r *Reader) { lt = readLineTable(r) })
	return lt, err
}

func readLineTable(r *Reader) (lt LineTable) {
	lt.Start, lt.End = r.Uint64(), r.Uint64()
	n := r.Count(12)
	lt.Lines = make([]LineEntry, 0, n)
	for i := 0; i < n && r.Err() == nil; i++ {
		lt.Lines = append(lt.Lines, LineEntry{CodeIndex: r.Uint64(), Line: r.Int32()})
	}
	return lt
}

// VariableTable is a method's local variable table.
type VariableTable struct {
	ArgCount  int32 // words of arguments, including this
	Variables []Variable
}

// Variable is one slot's variable and the code range where it is live.
type Variable struct {
	CodeIndex uint64
	Name      string
	Signature string
	Generic   string
	Length    uint32
	Slot      int32
}

// Visible reports whether the variable is live at a code index.
func (v *Variable) Visible(index uint64) bool {
	return index >= v.CodeIndex && index < v.CodeIndex+uint64(v.Length)
}

func (c *Conn) variableTable(ctx context.Context, cmd Cmd, t ReferenceTypeID, m MethodID, generic bool) (vt VariableTable, err error) {
	if m == 0 {
		return vt, noMethod(cmd)
	}
	err = c.do(ctx, cmd, func(w *Writer) { writeMethod(w, t, m) }, func(r *Reader) { vt = readVariableTable(r, generic) })
	return vt, err
}

func readVariableTable(r *Reader, generic bool) (vt VariableTable) {
	vt.ArgCount = r.Int32()
	n := r.Count(24)
	vt.Variables = make([]Variable, 0, n)
	for i := 0; i < n && r.Err() == nil; i++ {
		v := Variable{CodeIndex: r.Uint64(), Name: r.String(), Signature: r.String()}
		if generic {
			v.Generic = r.String()
		}
		v.Length = r.Uint32()
		v.Slot = r.Int32()
		vt.Variables = append(vt.Variables, v)
	}
	return vt
}

// VariableTable returns a method's variables (ABSENT_INFORMATION without -g).
func (c *Conn) VariableTable(ctx context.Context, t ReferenceTypeID, m MethodID) (VariableTable, error) {
	return c.variableTable(ctx, CmdMethodVariableTable, t, m, false)
}

// VariableTableWithGeneric returns a method's variables with generic signatures.
func (c *Conn) VariableTableWithGeneric(ctx context.Context, t ReferenceTypeID, m MethodID) (VariableTable, error) {
	return c.variableTable(ctx, CmdMethodVariableTableWithGeneric, t, m, true)
}

// Bytecodes returns a method's bytecodes.
func (c *Conn) Bytecodes(ctx context.Context, t ReferenceTypeID, m MethodID) (code []byte, err error) {
	if m == 0 {
		return nil, noMethod(CmdMethodBytecodes)
	}
	err = c.do(ctx, CmdMethodBytecodes, func(w *Writer) { writeMethod(w, t, m) }, func(r *Reader) {
		code = append([]byte(nil), r.take(r.Count(1))...)
	})
	return code, err
}

// IsObsolete reports whether a method was replaced by RedefineClasses.
func (c *Conn) IsObsolete(ctx context.Context, t ReferenceTypeID, m MethodID) (ob bool, err error) {
	if m == 0 {
		return true, nil // HotSpot's id of every obsolete method
	}
	err = c.do(ctx, CmdMethodIsObsolete, func(w *Writer) { writeMethod(w, t, m) }, func(r *Reader) { ob = r.Bool() })
	return ob, err
}

// ReflectedType returns the type a java.lang.Class object stands for.
func (c *Conn) ReflectedType(ctx context.Context, class ClassObjectID) (ci ClassInfo, err error) {
	err = c.do(ctx, CmdClassObjectReflectedType, func(w *Writer) { w.ObjectID(class) },
		func(r *Reader) { ci = ClassInfo{TypeTag: TypeTag(r.Byte()), ID: r.ReferenceTypeID()} })
	return ci, err
}

// ModuleName returns a module's name ("" for an unnamed module).
func (c *Conn) ModuleName(ctx context.Context, m ModuleID) (name string, err error) {
	err = c.do(ctx, CmdModuleName, func(w *Writer) { w.ObjectID(m) }, func(r *Reader) { name = r.String() })
	return name, err
}

// ModuleClassLoader returns a module's class loader.
func (c *Conn) ModuleClassLoader(ctx context.Context, m ModuleID) (id ClassLoaderID, err error) {
	err = c.do(ctx, CmdModuleClassLoader, func(w *Writer) { w.ObjectID(m) }, func(r *Reader) { id = r.ObjectID() })
	return id, err
}

// VisibleClasses returns the types a class loader can find by name.
func (c *Conn) VisibleClasses(ctx context.Context, loader ClassLoaderID) (out []ClassInfo, err error) {
	err = c.do(ctx, CmdClassLoaderVisibleClasses, func(w *Writer) { w.ObjectID(loader) }, func(r *Reader) { out = readTaggedRefTypes(r) })
	return out, err
}

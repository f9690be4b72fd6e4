package debugger

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	"github.com/ddmbridge/ddmbridge/jdwp/lang"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
)

// Coroutines (a language that suspends: lang.Suspending, Kotlin's): a
// stopped thread that runs a coroutine has, below the frames of the
// suspend functions it runs, a frame of the runtime's resume method
// (BaseContinuationImpl.resumeWith) whose continuation links (completion)
// lead to the suspend functions that resume after the current one: the
// coroutine's async stack. The layer reads it from the continuations'
// fields — no code runs — and names each by its class's suspension points
// (Kotlin's @DebugMetadata, read from the class file the VM loaded it from:
// the VM's class path, VirtualMachine.ClassPaths; JDWP gives no class
// bytes).

// AsyncFrame is one continuation of a coroutine's async stack: the suspend
// function (or lambda) that resumes when the one above it completes.
type AsyncFrame struct {
	// Continuation is the continuation object; Class its class.
	Continuation jdwp.ObjectID
	Class        jdwp.ReferenceTypeID
	// Owner is the binary name of the suspend function's class, Method
	// the function's name ("" when its class carries no suspension
	// points: then Owner is the continuation's class).
	Owner, Method string
	// Rel is its source file relative to a source root ("app/Main.kt"),
	// Line the line it suspended on (0 when unknown).
	Rel  string
	Line int
	// Spilled are the local variables it keeps while suspended, under the
	// source's names.
	Spilled []SpilledValue
}

// SpilledValue is a local variable a continuation keeps in a field.
type SpilledValue struct {
	Name, Field string
	Value       jdwp.Value
}

// maxAsyncFrames bounds an async stack (a completion chain is finite, but
// a corrupt or cyclic one must not loop).
const maxAsyncFrames = 256

// suspending is the session's language with coroutines, nil without one.
func (t *Target) suspending() lang.Suspending {
	for _, l := range t.langs() {
		if s, ok := l.(lang.Suspending); ok {
			return s
		}
	}
	return nil
}

// AsyncStack returns the async stack of the coroutine a stopped thread
// runs, frames being its stack (Stack): at is the index in frames of the
// runtime's resume frame, above which the async frames belong (the
// coroutine's innermost continuation's own frames are above it); none
// when the thread runs no coroutine. The answer is kept for the stop.
func (t *Target) AsyncStack(ctx context.Context, thread jdwp.ThreadID, frames []mirror.Frame) (at int, async []AsyncFrame, err error) {
	t.stacks.mu.Lock()
	st := t.stacks.get(thread)
	if st.async != nil && st.asyncFor == len(frames) {
		a := st.async
		t.stacks.mu.Unlock()
		return a.at, a.frames, nil
	}
	t.stacks.mu.Unlock()
	a, err := t.readAsyncStack(ctx, thread, frames)
	if err != nil {
		return -1, nil, err
	}
	t.stacks.mu.Lock()
	st = t.stacks.get(thread)
	st.async, st.asyncFor = a, len(frames)
	t.stacks.mu.Unlock()
	return a.at, a.frames, nil
}

// asyncOf returns the async stack of a stopped thread with its job.
func (t *Target) asyncOf(ctx context.Context, thread jdwp.ThreadID, frames []mirror.Frame) (*asyncStack, error) {
	if _, _, err := t.AsyncStack(ctx, thread, frames); err != nil {
		return nil, err
	}
	t.stacks.mu.Lock()
	defer t.stacks.mu.Unlock()
	return t.stacks.get(thread).async, nil
}

// asyncStack is a stopped thread's async stack as read.
type asyncStack struct {
	at     int
	frames []AsyncFrame
	job    jdwp.ObjectID // the object ending the chain: the coroutine
}

func (t *Target) readAsyncStack(ctx context.Context, thread jdwp.ThreadID, frames []mirror.Frame) (*asyncStack, error) {
	none := &asyncStack{at: -1}
	s := t.suspending()
	if s == nil {
		return none, nil
	}
	names := s.Continuations()
	base := javalang.Signature(names.Base)
	at := -1
	for i, f := range frames {
		if f.Loc.Method == 0 {
			continue
		}
		sig, err := t.VM.Signature(ctx, f.Loc.Class)
		if err != nil || sig != base {
			continue
		}
		if m, err := t.VM.Method(ctx, f.Loc.Class, f.Loc.Method); err == nil && m.Name == names.Resume {
			at = i
			break
		}
	}
	if at < 0 {
		return none, nil
	}
	// The continuation the resume loop runs: its local "current" (the
	// loop goes on with the caller when one completes), else this.
	fl, err := t.Locals(ctx, frames[at])
	if err != nil {
		return none, fmt.Errorf("the coroutine's resume frame: %w", err)
	}
	cur := fl.This.ID
	for i, v := range fl.Vars {
		if v.Name == "current" && fl.Vals[i].Tag.IsObject() && !fl.Vals[i].IsNull() {
			cur = fl.Vals[i].Object()
		}
	}
	if cur == 0 {
		return none, nil
	}
	_, next, err := t.continuation(ctx, s, cur, false)
	if err != nil {
		return none, err
	}
	async, job, err := t.continuationChain(ctx, s, next, maxAsyncFrames)
	if err != nil {
		return none, err
	}
	t.describeByRunning(ctx, s, thread, async)
	return &asyncStack{at: at, frames: async, job: job}, nil
}

// loadBeside returns a class (binary name), loaded, if it is not yet, by
// the loader of class beside (Class.forName run in thread, on the
// invocation road): the runtime loads its metadata reader only when it
// first needs it.
func (t *Target) loadBeside(ctx context.Context, thread jdwp.ThreadID, name, beside string) (jdwp.ReferenceTypeID, error) {
	sig := javalang.Signature(name)
	if c, err := t.VM.ClassBySignature(ctx, sig); err == nil {
		return c, nil
	}
	b, err := t.VM.ClassBySignature(ctx, javalang.Signature(beside))
	if err != nil {
		return 0, err
	}
	loader, err := t.VM.ClassLoader(ctx, b)
	if err != nil {
		return 0, err
	}
	cls, err := t.VM.ClassBySignature(ctx, "Ljava/lang/Class;")
	if err != nil {
		return 0, err
	}
	ms, err := t.VM.MethodsNamed(ctx, cls, "forName")
	if err != nil {
		return 0, err
	}
	i := slices.IndexFunc(ms, func(m mirror.Method) bool {
		return m.Static() && m.Signature == "(Ljava/lang/String;ZLjava/lang/ClassLoader;)Ljava/lang/Class;"
	})
	if i < 0 {
		return 0, errors.New("Class.forName(String, boolean, ClassLoader) not found")
	}
	str, err := t.VM.NewString(ctx, name)
	if err != nil {
		return 0, err
	}
	args := []jdwp.Value{{Tag: jdwp.TagString, Bits: uint64(str)}, {Tag: jdwp.TagBoolean, Bits: 1}, {Tag: jdwp.TagClassLoader, Bits: uint64(loader)}}
	res, err := t.Invoke(ctx, thread, 0, ms[i], args)
	if err != nil {
		return 0, err
	}
	if res.Exception.ID != 0 {
		return 0, fmt.Errorf("Class.forName(%s) threw", name)
	}
	return t.VM.ClassBySignature(ctx, sig)
}

// maxRunDescribed bounds the continuations of one async stack described by
// running the runtime's metadata reader (two methods each).
const maxRunDescribed = 16

// describeByRunning describes the continuations whose class file was out
// of reach (no suspension points read: an app on a device, a remote VM) by
// running the runtime's own reader of their metadata in thread, on the
// invocation road; the first failure (a thread not stopped at an event)
// ends it: those frames stay named by their class.
func (t *Target) describeByRunning(ctx context.Context, s lang.Suspending, thread jdwp.ThreadID, async []AsyncFrame) {
	names := s.Continuations()
	if names.Metadata == "" || thread == 0 {
		return
	}
	// Only a thread stopped at an event can run a method (a paused one,
	// or one the VM-wide suspension holds, cannot).
	if r := t.Stops.Reason(thread); r == "" || r == ReasonPause || r == "paused" {
		return
	}
	var frame, spilled *mirror.Method
	done := 0
	for i := range async {
		af := &async[i]
		if af.Method != "" || done >= maxRunDescribed {
			continue
		}
		if frame == nil {
			c, err := t.loadBeside(ctx, thread, names.Metadata, names.Base)
			if err != nil {
				t.log.Debug().Err(err).Msg("the runtime's metadata reader")
				return
			}
			find := func(name, ret string) *mirror.Method {
				ms, err := t.VM.MethodsNamed(ctx, c, name)
				if err != nil {
					return nil
				}
				for _, m := range ms {
					if m.Static() && m.Signature == "("+javalang.Signature(names.Base)+")"+ret {
						return &m
					}
				}
				return nil
			}
			if frame = find(names.MetadataFrame, "Ljava/lang/StackTraceElement;"); frame == nil {
				return
			}
			spilled = find(names.MetadataSpilled, "[Ljava/lang/String;")
		}
		done++
		arg := []jdwp.Value{{Tag: jdwp.TagObject, Bits: uint64(af.Continuation)}}
		res, err := t.Invoke(ctx, thread, 0, *frame, arg)
		if err != nil || res.Exception.ID != 0 || res.Value.IsNull() {
			t.log.Debug().Err(err).Msg("a continuation's metadata by running the runtime's reader")
			return
		}
		t.readStackElement(ctx, res.Value.Object(), af)
		if spilled == nil {
			continue
		}
		res, err = t.Invoke(ctx, thread, 0, *spilled, arg)
		if err != nil || res.Exception.ID != 0 || res.Value.IsNull() {
			continue
		}
		n, err := t.VM.ArrayLength(ctx, res.Value.Object())
		if err != nil {
			continue
		}
		pairs, err := t.VM.ArrayValues(ctx, res.Value.Object(), 0, n)
		if err != nil {
			continue
		}
		for k := 0; k+1 < len(pairs); k += 2 {
			field, _ := t.VM.String(ctx, pairs[k].Object())
			name, _ := t.VM.String(ctx, pairs[k+1].Object())
			shown := name
			if l, isLang := s.(lang.Language); isLang {
				var ok bool
				if shown, ok = l.Variable(name); !ok {
					continue
				}
			}
			if v, ok, err := t.VM.Field(ctx, af.Continuation, field); err == nil && ok {
				af.Spilled = append(af.Spilled, SpilledValue{Name: shown, Field: field, Value: v})
			}
		}
	}
}

// continuationChain reads at most max continuations from c along their
// caller links while they are the runtime's continuations; job is the
// object that ends the chain (the coroutine), 0 when max ended it.
func (t *Target) continuationChain(ctx context.Context, s lang.Suspending, c jdwp.ObjectID, max int) (out []AsyncFrame, job jdwp.ObjectID, err error) {
	for c != 0 && len(out) < max {
		af, next, err := t.continuation(ctx, s, c, true)
		if err != nil {
			return out, 0, err
		}
		if af == nil {
			return out, c, nil
		}
		out = append(out, *af)
		c = next
	}
	return out, 0, nil
}

// continuation reads one continuation: nil when obj is not one of the
// runtime's compiled continuations (a coroutine's job: the chain's end);
// next is its caller link. With describe, its suspension point and spilled
// variables are read too (one command: every field at once).
func (t *Target) continuation(ctx context.Context, s lang.Suspending, obj jdwp.ObjectID, describe bool) (*AsyncFrame, jdwp.ObjectID, error) {
	names := s.Continuations()
	class, sig, err := t.VM.ObjectType(ctx, obj)
	if err != nil {
		return nil, 0, err
	}
	cf := t.contClass(ctx, s, class, sig)
	if cf.err != nil || !cf.is {
		return nil, 0, cf.err
	}
	ids, fields := cf.callerIDs, cf.caller
	if describe {
		ids, fields = cf.allIDs, cf.all
	}
	vals, err := t.VM.ReadFields(ctx, obj, ids)
	if err != nil {
		return nil, 0, err
	}
	byName := map[string]jdwp.Value{}
	var next jdwp.ObjectID
	for i, f := range fields {
		if f.Name == names.Caller && f.Class != class {
			next = vals[i].Object()
			continue
		}
		byName[f.Name] = vals[i]
	}
	if !describe {
		return &AsyncFrame{Continuation: obj, Class: class}, next, nil
	}
	af := &AsyncFrame{Continuation: obj, Class: class, Owner: javalang.TypeName(sig)}
	sp := cf.points
	if sp == nil {
		return af, next, nil // a continuation without metadata: named by its class
	}
	owner, method, file := sp.Function()
	af.Owner, af.Method = owner, method
	if file != "" {
		pkg := ""
		if i := strings.LastIndexByte(owner, '.'); i >= 0 {
			pkg = strings.ReplaceAll(owner[:i], ".", "/") + "/"
		}
		af.Rel = pkg + file
	}
	state := byName[names.State]
	line, spilled := sp.At(int(int32(state.Bits)))
	af.Line = line
	for _, v := range spilled {
		if val, ok := byName[v.Field]; ok {
			af.Spilled = append(af.Spilled, SpilledValue{Name: v.Name, Field: v.Field, Value: val})
		}
	}
	return af, next, nil
}

// contClass is what the layer knows of a class met in a chain of
// continuations, found out once however many objects of it are read at
// once (1,000 coroutines of one class ask together).
type contClass struct {
	once sync.Once
	err  error
	is   bool // a runtime continuation
	// caller is the caller link field; all adds the class's own instance
	// fields (its state and spilled variables); their ids beside them.
	caller, all       []mirror.Field
	callerIDs, allIDs []jdwp.FieldID
	points            lang.SuspendPoints // nil: none found
}

// contClass returns the facts of class (its signature sig).
func (t *Target) contClass(ctx context.Context, s lang.Suspending, class jdwp.ReferenceTypeID, sig string) *contClass {
	c := &t.conts
	c.mu.Lock()
	if c.classes == nil {
		c.classes = map[jdwp.ReferenceTypeID]*contClass{}
	}
	cf := c.classes[class]
	if cf == nil {
		cf = &contClass{}
		c.classes[class] = cf
	}
	c.mu.Unlock()
	cf.once.Do(func() {
		names := s.Continuations()
		if cf.is, cf.err = t.VM.Subtype(ctx, sig, javalang.Signature(names.Base)); cf.err != nil || !cf.is {
			return
		}
		chain, err := t.VM.FieldChain(ctx, class)
		if err != nil {
			cf.err = err
			return
		}
		for _, f := range chain {
			if f.Static() {
				continue
			}
			if f.Name == names.Caller && f.Class != class {
				cf.caller, cf.callerIDs = append(cf.caller, f), append(cf.callerIDs, f.ID)
			}
			if f.Class == class || f.Name == names.Caller && f.Class != class {
				cf.all, cf.allIDs = append(cf.all, f), append(cf.allIDs, f.ID)
			}
		}
		cf.points, _ = t.suspendPoints(ctx, s, class, sig)
	})
	if cf.err != nil {
		// A failure (the connection, a timeout) is not kept: the next
		// read asks again.
		c.mu.Lock()
		if c.classes[class] == cf {
			delete(c.classes, class)
		}
		c.mu.Unlock()
	}
	return cf
}

// suspendPoints returns a continuation class's suspension points, read
// once from its class file on the VM's class path (nil when not found
// there or without any).
func (t *Target) suspendPoints(ctx context.Context, s lang.Suspending, class jdwp.ReferenceTypeID, sig string) (lang.SuspendPoints, error) {
	return t.conts.points.Get(class, func() (lang.SuspendPoints, error) {
		b, err := t.classFile(ctx, sig)
		if err != nil || b == nil {
			return nil, nil // not found: the frame is named by its class
		}
		sp, err := s.SuspendPoints(b)
		if err != nil {
			t.log.Debug().Err(err).Str("class", sig).Msg("suspension points")
			return nil, nil
		}
		return sp, nil
	})
}

// contState is what the layer knows of continuation classes: their
// suspension points and where their class files are.
type contState struct {
	points mirror.Memo[jdwp.ReferenceTypeID, lang.SuspendPoints]

	mu      sync.Mutex
	classes map[jdwp.ReferenceTypeID]*contClass // by class (contClass)
	path    []string                            // the VM's class path, absolute; nil until read
	read    bool                                // path was read
	jars    map[string]*zip.Reader              // opened archives of the class path
	files   []io.Closer
}

// maxClassFile bounds a class file read from an archive.
const maxClassFile = 64 << 20

// classFile finds the class file of a class (its signature) on the VM's
// class path (directories and jars on this machine); nil when it is not
// there (a remote VM, ART, a class defined at run time).
func (t *Target) classFile(ctx context.Context, sig string) ([]byte, error) {
	c := &t.conts
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.read {
		c.read = true
		cp, err := t.VM.ClassPaths(ctx)
		if err != nil {
			return nil, err
		}
		for _, p := range cp.ClassPaths {
			if !filepath.IsAbs(p) {
				p = filepath.Join(cp.BaseDir, p)
			}
			c.path = append(c.path, p)
		}
	}
	name := javalang.InternalName(sig) + ".class"
	for _, p := range c.path {
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		if fi.IsDir() {
			b, err := os.ReadFile(filepath.Join(p, filepath.FromSlash(name)))
			if err == nil {
				return b, nil
			}
			continue
		}
		zr := c.jars[p]
		if zr == nil {
			f, err := os.Open(p)
			if err != nil {
				continue
			}
			zr, err = zip.NewReader(f, fi.Size())
			if err != nil {
				f.Close()
				continue
			}
			if c.jars == nil {
				c.jars = map[string]*zip.Reader{}
			}
			c.jars[p] = zr
			c.files = append(c.files, f)
		}
		zf, err := zr.Open(name)
		if err != nil {
			continue
		}
		b, err := io.ReadAll(io.LimitReader(zf, maxClassFile))
		zf.Close()
		if err == nil {
			return b, nil
		}
	}
	return nil, nil
}

// closeClassFiles closes the class path's archives (at the session's end).
func (c *contState) closeClassFiles() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for _, f := range c.files {
		errs = append(errs, f.Close())
	}
	c.files, c.jars = nil, nil
	return errors.Join(errs...)
}

// readStackElement reads a java.lang.StackTraceElement's class, method,
// file and line into af (fields only); af keeps what the element lacks.
func (t *Target) readStackElement(ctx context.Context, ste jdwp.ObjectID, af *AsyncFrame) {
	str := func(field string) string {
		v, ok, err := t.VM.Field(ctx, ste, field)
		if err != nil || !ok || v.IsNull() {
			return ""
		}
		text, _ := t.VM.String(ctx, v.Object())
		return text
	}
	if owner, method := str("declaringClass"), str("methodName"); method != "" {
		af.Owner, af.Method = owner, method
	}
	if file := str("fileName"); file != "" && af.Method != "" {
		pkg := ""
		if i := strings.LastIndexByte(af.Owner, '.'); i >= 0 {
			pkg = strings.ReplaceAll(af.Owner[:i], ".", "/") + "/"
		}
		af.Rel = pkg + file
	}
	if v, ok, err := t.VM.Field(ctx, ste, "lineNumber"); err == nil && ok && v.Int() > 0 {
		af.Line = int(v.Int())
	}
}

package jdwp

import (
	"context"
	"strings"
)

// VersionInfo is the reply of VirtualMachine.Version.
type VersionInfo struct {
	Description string
	JDWPMajor   int32
	JDWPMinor   int32
	VMVersion   string
	VMName      string
}

// Android reports whether the VM describes itself as Android's (ART, or
// Dalvik before it), whose agents speak DDM (command set 0xC7). ART keeps
// the name Dalvik: its agent answers with vmName "Dalvik" (java.vm.name)
// and version 2.x; Dalvik's own answered "Dalvik" or "DalvikVM" with an
// "Android DalvikVM" description. HotSpot, OpenJ9 and the others answer
// with their own names, never Dalvik.
func (v VersionInfo) Android() bool {
	name := strings.ToLower(v.VMName)
	return strings.Contains(name, "dalvik") || strings.Contains(name, "android") ||
		strings.Contains(strings.ToLower(v.Description), "android")
}

// ClassInfo describes a loaded reference type.
type ClassInfo struct {
	TypeTag   TypeTag
	ID        ReferenceTypeID
	Signature string
	Generic   string // empty when the class has no generic signature or it was not asked for
	Status    ClassStatus
}

// Capabilities is the reply of VirtualMachine.CapabilitiesNew (or the older
// Capabilities, whose seven flags come first). Higher layers use it to withdraw
// features a VM lacks.
type Capabilities struct {
	CanWatchFieldModification        bool
	CanWatchFieldAccess              bool
	CanGetBytecodes                  bool
	CanGetSyntheticAttribute         bool
	CanGetOwnedMonitorInfo           bool
	CanGetCurrentContendedMonitor    bool
	CanGetMonitorInfo                bool
	CanRedefineClasses               bool
	CanAddMethod                     bool
	CanUnrestrictedlyRedefineClasses bool
	CanPopFrames                     bool
	CanUseInstanceFilters            bool
	CanGetSourceDebugExtension       bool
	CanRequestVMDeathEvent           bool
	CanSetDefaultStratum             bool
	CanGetInstanceInfo               bool
	CanRequestMonitorEvents          bool
	CanGetMonitorFrameInfo           bool
	CanUseSourceNameFilters          bool
	CanGetConstantPool               bool
	CanForceEarlyReturn              bool
}

// capabilityFields lists the flags in wire order, so decoding is one loop.
func (c *Capabilities) fields() []*bool {
	return []*bool{&c.CanWatchFieldModification, &c.CanWatchFieldAccess, &c.CanGetBytecodes,
		&c.CanGetSyntheticAttribute, &c.CanGetOwnedMonitorInfo, &c.CanGetCurrentContendedMonitor,
		&c.CanGetMonitorInfo, &c.CanRedefineClasses, &c.CanAddMethod, &c.CanUnrestrictedlyRedefineClasses,
		&c.CanPopFrames, &c.CanUseInstanceFilters, &c.CanGetSourceDebugExtension, &c.CanRequestVMDeathEvent,
		&c.CanSetDefaultStratum, &c.CanGetInstanceInfo, &c.CanRequestMonitorEvents, &c.CanGetMonitorFrameInfo,
		&c.CanUseSourceNameFilters, &c.CanGetConstantPool, &c.CanForceEarlyReturn}
}

// Version returns the VM's version information (VirtualMachine.Version).
func (c *Conn) Version(ctx context.Context) (v VersionInfo, err error) {
	if c.awaitPreload(ctx); c.version.Load() != nil {
		return *c.version.Load(), nil
	}
	err = c.do(ctx, CmdVMVersion, nil, func(r *Reader) { v = readVersion(r) })
	if err == nil {
		c.version.Store(&v)
	}
	return v, err
}

func readVersion(r *Reader) VersionInfo {
	return VersionInfo{Description: r.String(), JDWPMajor: r.Int32(), JDWPMinor: r.Int32(), VMVersion: r.String(), VMName: r.String()}
}

// preloadCmds are what Preload asks, in order.
var preloadCmds = []Cmd{CmdVMIDSizes, CmdVMVersion, CmdVMCapabilitiesNew}

// Preload asks the VM at once what every debugger asks first — its id
// sizes, its version and its capabilities (three commands every agent
// implements) — and keeps the answers for IDSizes, Version and
// Capabilities: one round trip where asking in turn costs three, which a
// slow link (adb over Wi-Fi, a device farm) makes felt. A connection made
// with Options.Preload sent them with its handshake: Preload then waits
// for those. A VM without CapabilitiesNew is asked its old Capabilities
// later, by Capabilities.
func (c *Conn) Preload(ctx context.Context) error {
	if c.sizes.Load() != nil && c.version.Load() != nil && c.caps.Load() != nil {
		return nil
	}
	if _, ok := ctx.Deadline(); !ok && c.opts.RequestTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.opts.RequestTimeout)
		defer cancel()
	}
	calls := c.pre
	if calls == nil {
		calls = make([]*Call, 0, len(preloadCmds))
		for _, cmd := range preloadCmds {
			call, err := c.start(nil, cmd, nil) // queued: the three leave in one write
			if err != nil {
				return err
			}
			calls = append(calls, call)
		}
		c.Flush(ctx)
	}
	replies := make([][]byte, len(calls))
	errs := make([]error, len(calls))
	for i, call := range calls {
		replies[i], errs[i] = call.Wait(ctx)
		if errs[i] != nil && ctx.Err() != nil && c.pre == nil {
			c.forget(call.ID)
		}
	}
	if c.pre != nil && ctx.Err() == nil {
		c.preRead.Store(true) // answered (or failed) for good: later calls ask themselves
	}
	if errs[0] != nil {
		return errs[0]
	}
	sizes, err := DecodeIDSizes(replies[0])
	if err != nil {
		return err
	}
	c.sizes.CompareAndSwap(nil, &sizes)
	s := c.sizes.Load()
	if errs[1] == nil {
		r := Reader{Sizes: s, b: replies[1]}
		v := readVersion(&r)
		if r.err == nil {
			c.version.CompareAndSwap(nil, &v)
		}
	}
	if errs[2] == nil {
		var caps Capabilities
		r := Reader{Sizes: s, b: replies[2]}
		readCapabilities(&r, &caps)
		if r.err == nil {
			c.caps.CompareAndSwap(nil, &caps)
		}
	}
	return nil
}

func readClassInfos(r *Reader, withSig, generic bool) []ClassInfo {
	n := r.Count(1 + r.Sizes.ReferenceTypeID + 4)
	out := make([]ClassInfo, 0, n)
	for i := 0; i < n && r.Err() == nil; i++ {
		ci := ClassInfo{TypeTag: TypeTag(r.Byte()), ID: r.ReferenceTypeID()}
		if withSig {
			ci.Signature = r.String()
		}
		if generic {
			ci.Generic = r.String()
		}
		ci.Status = ClassStatus(r.Int32())
		out = append(out, ci)
	}
	return out
}

// ClassesBySignature returns the loaded types with a JNI signature such as "Ljava/lang/String;".
func (c *Conn) ClassesBySignature(ctx context.Context, signature string) (out []ClassInfo, err error) {
	err = c.do(ctx, CmdVMClassesBySignature, func(w *Writer) { w.String(signature) }, func(r *Reader) {
		out = readClassInfos(r, false, false)
		for i := range out {
			out[i].Signature = signature
		}
	})
	return out, err
}

// AllClasses returns every loaded reference type (VirtualMachine.AllClasses).
func (c *Conn) AllClasses(ctx context.Context) (out []ClassInfo, err error) {
	err = c.do(ctx, CmdVMAllClasses, nil, func(r *Reader) { out = readClassInfos(r, true, false) })
	return out, err
}

// AllClassesWithGeneric returns every loaded reference type with generic signatures.
func (c *Conn) AllClassesWithGeneric(ctx context.Context) (out []ClassInfo, err error) {
	err = c.do(ctx, CmdVMAllClassesWithGeneric, nil, func(r *Reader) { out = readClassInfos(r, true, true) })
	return out, err
}

func readObjectIDs(r *Reader) []ObjectID {
	n := r.Count(r.Sizes.ObjectID)
	out := make([]ObjectID, 0, n)
	for i := 0; i < n && r.Err() == nil; i++ {
		out = append(out, r.ObjectID())
	}
	return out
}

func readRefTypeIDs(r *Reader) []ReferenceTypeID {
	n := r.Count(r.Sizes.ReferenceTypeID)
	out := make([]ReferenceTypeID, 0, n)
	for i := 0; i < n && r.Err() == nil; i++ {
		out = append(out, r.ReferenceTypeID())
	}
	return out
}

func readTaggedRefTypes(r *Reader) []ClassInfo {
	n := r.Count(1 + r.Sizes.ReferenceTypeID)
	out := make([]ClassInfo, 0, n)
	for i := 0; i < n && r.Err() == nil; i++ {
		out = append(out, ClassInfo{TypeTag: TypeTag(r.Byte()), ID: r.ReferenceTypeID()})
	}
	return out
}

// AllThreads returns every live thread started by the application.
func (c *Conn) AllThreads(ctx context.Context) (out []ThreadID, err error) {
	err = c.do(ctx, CmdVMAllThreads, nil, func(r *Reader) { out = readObjectIDs(r) })
	return out, err
}

// TopLevelThreadGroups returns the thread groups without a parent.
func (c *Conn) TopLevelThreadGroups(ctx context.Context) (out []ThreadGroupID, err error) {
	err = c.do(ctx, CmdVMTopLevelThreadGroups, nil, func(r *Reader) { out = readObjectIDs(r) })
	return out, err
}

// Dispose ends the debugging session: the VM clears every request, resumes all
// threads and waits for the next debugger (VirtualMachine.Dispose). The
// connection is then closed.
func (c *Conn) Dispose(ctx context.Context) error {
	c.disposed.Store(true)
	err := c.do(ctx, CmdVMDispose, nil, nil)
	c.Close()
	return err
}

// Suspend suspends every thread (VirtualMachine.Suspend).
func (c *Conn) Suspend(ctx context.Context) error { return c.do(ctx, CmdVMSuspend, nil, nil) }

// Resume resumes every thread once (VirtualMachine.Resume).
func (c *Conn) Resume(ctx context.Context) error { return c.do(ctx, CmdVMResume, nil, nil) }

// Exit terminates the VM with the exit code.
func (c *Conn) Exit(ctx context.Context, code int32) error {
	return c.do(ctx, CmdVMExit, func(w *Writer) { w.Int32(code) }, nil)
}

// CreateString creates a string in the VM. It may be collected unless
// DisableCollection is called on it.
func (c *Conn) CreateString(ctx context.Context, s string) (id StringID, err error) {
	err = c.do(ctx, CmdVMCreateString, func(w *Writer) { w.String(s) }, func(r *Reader) { id = r.ObjectID() })
	return id, err
}

// Capabilities returns the VM's capabilities (VirtualMachine.CapabilitiesNew, or
// VirtualMachine.Capabilities on VMs without it). The answer is cached.
func (c *Conn) Capabilities(ctx context.Context) (Capabilities, error) {
	if c.awaitPreload(ctx); c.caps.Load() != nil {
		return *c.caps.Load(), nil
	}
	var caps Capabilities
	dec := func(r *Reader) { readCapabilities(r, &caps) }
	err := c.do(ctx, CmdVMCapabilitiesNew, nil, dec)
	if Code(err) == ErrNotImplemented {
		caps = Capabilities{}
		err = c.do(ctx, CmdVMCapabilities, nil, dec)
	}
	if err != nil {
		return Capabilities{}, err
	}
	c.caps.Store(&caps)
	return caps, nil
}

// readCapabilities reads a Capabilities or CapabilitiesNew reply (the old
// one is the new one's first seven flags).
func readCapabilities(r *Reader, caps *Capabilities) {
	for _, f := range caps.fields() {
		if r.Remaining() == 0 {
			break
		}
		*f = r.Bool()
	}
}

// ClassPathInfo is the reply of VirtualMachine.ClassPaths.
type ClassPathInfo struct {
	BaseDir        string
	ClassPaths     []string
	BootClassPaths []string
}

func readStrings(r *Reader) []string {
	n := r.Count(4)
	out := make([]string, 0, n)
	for i := 0; i < n && r.Err() == nil; i++ {
		out = append(out, r.String())
	}
	return out
}

// ClassPaths returns the VM's class paths.
func (c *Conn) ClassPaths(ctx context.Context) (p ClassPathInfo, err error) {
	err = c.do(ctx, CmdVMClassPaths, nil, func(r *Reader) {
		p = ClassPathInfo{BaseDir: r.String(), ClassPaths: readStrings(r), BootClassPaths: readStrings(r)}
	})
	return p, err
}

// ObjectRefCount pairs an object with the number of references to release.
type ObjectRefCount struct {
	Object ObjectID
	Count  int32
}

// DisposeObjects releases objects the VM keeps for the debugger.
func (c *Conn) DisposeObjects(ctx context.Context, objs []ObjectRefCount) error {
	return c.do(ctx, CmdVMDisposeObjects, func(w *Writer) {
		w.Int32(int32(len(objs)))
		for _, o := range objs {
			w.ObjectID(o.Object)
			w.Int32(o.Count)
		}
	}, nil)
}

// HoldEvents makes the VM hold events until ReleaseEvents.
func (c *Conn) HoldEvents(ctx context.Context) error { return c.do(ctx, CmdVMHoldEvents, nil, nil) }

// ReleaseEvents releases events held by HoldEvents.
func (c *Conn) ReleaseEvents(ctx context.Context) error {
	return c.do(ctx, CmdVMReleaseEvents, nil, nil)
}

// ClassDef is one class to redefine: its type and new class-file bytes.
type ClassDef struct {
	Type      ReferenceTypeID
	ClassFile []byte
}

// RedefineClasses installs new class files (hot code replace). The VM's refusal
// comes back as a *CommandError with the JDWP reason (e.g. ADD_METHOD_NOT_IMPLEMENTED).
func (c *Conn) RedefineClasses(ctx context.Context, defs []ClassDef) error {
	return c.do(ctx, CmdVMRedefineClasses, func(w *Writer) {
		w.Int32(int32(len(defs)))
		for _, d := range defs {
			w.ReferenceTypeID(d.Type)
			w.Int32(int32(len(d.ClassFile)))
			w.Buf = append(w.Buf, d.ClassFile...)
		}
	}, nil)
}

// SetDefaultStratum sets the stratum used for line information ("" for the default).
func (c *Conn) SetDefaultStratum(ctx context.Context, stratum string) error {
	return c.do(ctx, CmdVMSetDefaultStratum, func(w *Writer) { w.String(stratum) }, nil)
}

// InstanceCounts returns the number of instances of each type.
func (c *Conn) InstanceCounts(ctx context.Context, types []ReferenceTypeID) (out []int64, err error) {
	err = c.do(ctx, CmdVMInstanceCounts, func(w *Writer) {
		w.Int32(int32(len(types)))
		for _, t := range types {
			w.ReferenceTypeID(t)
		}
	}, func(r *Reader) {
		n := r.Count(8)
		out = make([]int64, 0, n)
		for i := 0; i < n && r.Err() == nil; i++ {
			out = append(out, r.Int64())
		}
	})
	return out, err
}

// AllModules returns every module in the VM (JDWP 9+).
func (c *Conn) AllModules(ctx context.Context) (out []ModuleID, err error) {
	err = c.do(ctx, CmdVMAllModules, nil, func(r *Reader) { out = readObjectIDs(r) })
	return out, err
}

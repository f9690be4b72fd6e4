package simvm

import (
	"encoding/binary"

	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/jdwp"
)

// The JDWP face of a simulated VM without a JVM (no Options.JVM). It runs
// no code, so there is nothing to debug, but a debugger that attaches
// (jdb, any JDI client) must find a VM it can talk to, as a real VM lacking
// a capability answers it: JDI's attach sends IDSizes and EventRequest.Set
// (ClassPrepare, ClassUnload), jdb adds ClassesBySignature (for its
// uncaught-Throwable catch), ThreadStart and ThreadDeath requests and
// ClassPaths, and its commands read threads, groups and their types. So it
// answers those truthfully for a VM with no code: its threads in one group
// "main", the two classes they are instances of, no other class, no frames
// (a suspended thread has none), event requests accepted and never fired
// (no code runs that could fire them), every capability false, and
// NOT_IMPLEMENTED for the rest. jdb attaches, lists threads, suspends and
// resumes them, and defers breakpoints forever; its `version` prints the
// VM's description, which says why (DDMOnlyNote).

// DDMOnlyNote ends the Version description of a simulated VM without a
// JVM, and SimulatedMark is in that of every simulated VM: package ddm
// owns both (production code reads them there, never here).
const (
	DDMOnlyNote   = ddm.DDMOnlyNote
	SimulatedMark = ddm.SimulatedMark
)

// Ids of the bare VM's objects other than threads (0x1000+): its one
// thread group and the classes of its threads and group.
const (
	bareGroupID       = 0x100
	bareThreadClass   = 0x200
	bareGroupClass    = 0x201
	classStatusReady  = 7   // VERIFIED | PREPARED | INITIALIZED
	typeTagClass      = 1   // JDWP TypeTag.CLASS
	modifierPublic    = 0x1 // ACC_PUBLIC
	bareRequestIDBase = 1
)

var bareClasses = []struct {
	id  uint64
	sig string
}{
	{bareThreadClass, "Ljava/lang/Thread;"},
	{bareGroupClass, "Ljava/lang/ThreadGroup;"},
}

func bareClassSig(id uint64) (string, bool) {
	for _, c := range bareClasses {
		if c.id == id {
			return c.sig, true
		}
	}
	return "", false
}

func appendU32(b []byte, v int) []byte { return binary.BigEndian.AppendUint32(b, uint32(v)) }
func appendID(b []byte, id uint64) []byte {
	return binary.BigEndian.AppendUint64(b, id)
}

// threadIDs returns the ids of the VM's threads, sorted.
func (vm *VM) threadIDs() []uint64 {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	ts := sortedThreads(vm.threads)
	ids := make([]uint64, len(ts))
	for i, t := range ts {
		ids[i] = t.jdwpID
	}
	return ids
}

// threadSuspended reports whether id is a live thread and whether it is suspended.
func (vm *VM) threadSuspended(id uint64) (alive, suspended bool) {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	for _, t := range vm.threads {
		if t.jdwpID == id {
			return true, t.suspended
		}
	}
	return false, false
}

// answerBare answers what handleCore does not: the commands a debugger
// sends a VM with no code (see above). ok is false for a command it does
// not know either (NOT_IMPLEMENTED).
func (s *session) answerBare(cmd jdwp.Cmd, data []byte) (out []byte, code jdwp.ErrorCode, ok bool) {
	vm := s.vm
	id := uint64(0)
	if len(data) >= objectIDSize {
		id = binary.BigEndian.Uint64(data)
	}
	switch cmd {
	case jdwp.CmdVMClassesBySignature:
		sig := ""
		if len(data) >= 4 {
			if n := int(binary.BigEndian.Uint32(data)); n <= len(data)-4 {
				sig = string(data[4 : 4+n])
			}
		}
		for _, c := range bareClasses {
			if c.sig == sig {
				out = appendU32(nil, 1)
				out = append(out, typeTagClass)
				out = appendID(out, c.id)
				return appendU32(out, classStatusReady), jdwp.ErrNone, true
			}
		}
		return appendU32(nil, 0), jdwp.ErrNone, true
	case jdwp.CmdVMAllClasses, jdwp.CmdVMAllClassesWithGeneric:
		out = appendU32(nil, len(bareClasses))
		for _, c := range bareClasses {
			out = append(out, typeTagClass)
			out = appendID(out, c.id)
			out = jdwpString(out, c.sig)
			if cmd == jdwp.CmdVMAllClassesWithGeneric {
				out = jdwpString(out, "")
			}
			out = appendU32(out, classStatusReady)
		}
		return out, jdwp.ErrNone, true
	case jdwp.CmdVMTopLevelThreadGroups:
		return appendID(appendU32(nil, 1), bareGroupID), jdwp.ErrNone, true
	case jdwp.CmdVMClassPaths:
		out = jdwpString(nil, "/")
		return appendU32(appendU32(out, 0), 0), jdwp.ErrNone, true
	case jdwp.CmdVMDisposeObjects, jdwp.CmdVMHoldEvents, jdwp.CmdVMReleaseEvents, jdwp.CmdVMSetDefaultStratum,
		jdwp.CmdEventRequestClear, jdwp.CmdEventRequestClearAllBreakpoints:
		return nil, jdwp.ErrNone, true
	case jdwp.CmdEventRequestSet:
		// Accepted, never fired: no code runs here that could.
		s.requests++
		return appendU32(nil, bareRequestIDBase+s.requests-1), jdwp.ErrNone, true

	case jdwp.CmdRefTypeSignature, jdwp.CmdRefTypeSignatureWithGeneric, jdwp.CmdRefTypeClassLoader, jdwp.CmdRefTypeModifiers,
		jdwp.CmdRefTypeFields, jdwp.CmdRefTypeFieldsWithGeneric, jdwp.CmdRefTypeMethods, jdwp.CmdRefTypeMethodsWithGeneric,
		jdwp.CmdRefTypeSourceFile, jdwp.CmdRefTypeSourceDebugExtension, jdwp.CmdRefTypeNestedTypes, jdwp.CmdRefTypeStatus,
		jdwp.CmdRefTypeInterfaces, jdwp.CmdClassTypeSuperclass:
		sig, known := bareClassSig(id)
		if !known {
			return nil, jdwp.ErrInvalidClass, true
		}
		switch cmd {
		case jdwp.CmdRefTypeSignature:
			return jdwpString(nil, sig), jdwp.ErrNone, true
		case jdwp.CmdRefTypeSignatureWithGeneric:
			return jdwpString(jdwpString(nil, sig), ""), jdwp.ErrNone, true
		case jdwp.CmdRefTypeClassLoader, jdwp.CmdClassTypeSuperclass:
			return appendID(nil, 0), jdwp.ErrNone, true // the boot loader; no superclass is loaded here
		case jdwp.CmdRefTypeModifiers:
			return appendU32(nil, modifierPublic), jdwp.ErrNone, true
		case jdwp.CmdRefTypeStatus:
			return appendU32(nil, classStatusReady), jdwp.ErrNone, true
		case jdwp.CmdRefTypeSourceFile, jdwp.CmdRefTypeSourceDebugExtension:
			return nil, jdwp.ErrAbsentInformation, true
		}
		return appendU32(nil, 0), jdwp.ErrNone, true // no fields, methods, nested types or interfaces

	case jdwp.CmdObjRefReferenceType, jdwp.CmdObjRefDisableCollection, jdwp.CmdObjRefEnableCollection, jdwp.CmdObjRefIsCollected:
		class := uint64(bareGroupClass)
		if id != bareGroupID {
			if alive, _ := vm.threadSuspended(id); !alive {
				return nil, jdwp.ErrInvalidObject, true
			}
			class = bareThreadClass
		}
		switch cmd {
		case jdwp.CmdObjRefReferenceType:
			return appendID([]byte{typeTagClass}, class), jdwp.ErrNone, true
		case jdwp.CmdObjRefIsCollected:
			return []byte{0}, jdwp.ErrNone, true
		}
		return nil, jdwp.ErrNone, true

	case jdwp.CmdThreadThreadGroup, jdwp.CmdThreadFrames, jdwp.CmdThreadFrameCount, jdwp.CmdThreadSuspendCount:
		alive, suspended := vm.threadSuspended(id)
		switch {
		case !alive:
			return nil, jdwp.ErrInvalidThread, true
		case cmd == jdwp.CmdThreadThreadGroup:
			return appendID(nil, bareGroupID), jdwp.ErrNone, true
		case cmd == jdwp.CmdThreadSuspendCount:
			n := 0
			if suspended {
				n = 1
			}
			return appendU32(nil, n), jdwp.ErrNone, true
		case !suspended:
			return nil, jdwp.ErrThreadNotSuspended, true
		}
		return appendU32(nil, 0), jdwp.ErrNone, true // no frames: it runs no code

	case jdwp.CmdThreadGroupName, jdwp.CmdThreadGroupParent, jdwp.CmdThreadGroupChildren:
		if id != bareGroupID {
			return nil, jdwp.ErrInvalidThreadGroup, true
		}
		switch cmd {
		case jdwp.CmdThreadGroupName:
			return jdwpString(nil, "main"), jdwp.ErrNone, true
		case jdwp.CmdThreadGroupParent:
			return appendID(nil, 0), jdwp.ErrNone, true
		}
		ids := vm.threadIDs()
		out = appendU32(nil, len(ids))
		for _, t := range ids {
			out = appendID(out, t)
		}
		return appendU32(out, 0), jdwp.ErrNone, true

	case jdwp.CmdStackFrameGetValues, jdwp.CmdStackFrameSetValues, jdwp.CmdStackFrameThisObject, jdwp.CmdStackFramePopFrames:
		return nil, jdwp.ErrInvalidFrameID, true
	}
	return nil, jdwp.ErrNotImplemented, false
}

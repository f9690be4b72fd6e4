package jdwp

import "fmt"

// Cmd names one JDWP command: its command set and command number.
type Cmd struct{ Set, Cmd byte }

func (c Cmd) String() string { return CommandName(c.Set, c.Cmd) }

// Standard reports whether every agent can be sent c without harm: a set
// and a command byte below 0x80, and a command other than 0. Others (DDM's
// set 0xC7 among them) go only to a VM known to speak them: see
// Conn.AllowVendorCommands.
func (c Cmd) Standard() bool { return c.Set < 0x80 && c.Cmd < 0x80 && c.Cmd != 0 }

// Command set numbers.
const (
	SetVirtualMachine       byte = 1
	SetReferenceType        byte = 2
	SetClassType            byte = 3
	SetArrayType            byte = 4
	SetInterfaceType        byte = 5
	SetMethod               byte = 6
	SetField                byte = 8
	SetObjectReference      byte = 9
	SetStringReference      byte = 10
	SetThreadReference      byte = 11
	SetThreadGroupReference byte = 12
	SetArrayReference       byte = 13
	SetClassLoaderReference byte = 14
	SetEventRequest         byte = 15
	SetStackFrame           byte = 16
	SetClassObjectReference byte = 17
	SetModuleReference      byte = 18
	SetEvent                byte = 64
	// SetDDM is the vendor command set Android's Dalvik Debug Monitor uses ('G'|0x80).
	SetDDM byte = 0xC7
)

// commandSets is the table of every command set and command this package knows,
// indexed by set then command number. Names are the JDWP specification's.
var commandSets = map[byte]struct {
	name string
	cmds map[byte]string
}{
	SetVirtualMachine:       {"VirtualMachine", map[byte]string{1: "Version", 2: "ClassesBySignature", 3: "AllClasses", 4: "AllThreads", 5: "TopLevelThreadGroups", 6: "Dispose", 7: "IDSizes", 8: "Suspend", 9: "Resume", 10: "Exit", 11: "CreateString", 12: "Capabilities", 13: "ClassPaths", 14: "DisposeObjects", 15: "HoldEvents", 16: "ReleaseEvents", 17: "CapabilitiesNew", 18: "RedefineClasses", 19: "SetDefaultStratum", 20: "AllClassesWithGeneric", 21: "InstanceCounts", 22: "AllModules"}},
	SetReferenceType:        {"ReferenceType", map[byte]string{1: "Signature", 2: "ClassLoader", 3: "Modifiers", 4: "Fields", 5: "Methods", 6: "GetValues", 7: "SourceFile", 8: "NestedTypes", 9: "Status", 10: "Interfaces", 11: "ClassObject", 12: "SourceDebugExtension", 13: "SignatureWithGeneric", 14: "FieldsWithGeneric", 15: "MethodsWithGeneric", 16: "Instances", 17: "ClassFileVersion", 18: "ConstantPool", 19: "Module"}},
	SetClassType:            {"ClassType", map[byte]string{1: "Superclass", 2: "SetValues", 3: "InvokeMethod", 4: "NewInstance"}},
	SetArrayType:            {"ArrayType", map[byte]string{1: "NewInstance"}},
	SetInterfaceType:        {"InterfaceType", map[byte]string{1: "InvokeMethod"}},
	SetMethod:               {"Method", map[byte]string{1: "LineTable", 2: "VariableTable", 3: "Bytecodes", 4: "IsObsolete", 5: "VariableTableWithGeneric"}},
	SetField:                {"Field", map[byte]string{}},
	SetObjectReference:      {"ObjectReference", map[byte]string{1: "ReferenceType", 2: "GetValues", 3: "SetValues", 5: "MonitorInfo", 6: "InvokeMethod", 7: "DisableCollection", 8: "EnableCollection", 9: "IsCollected", 10: "ReferringObjects"}},
	SetStringReference:      {"StringReference", map[byte]string{1: "Value"}},
	SetThreadReference:      {"ThreadReference", map[byte]string{1: "Name", 2: "Suspend", 3: "Resume", 4: "Status", 5: "ThreadGroup", 6: "Frames", 7: "FrameCount", 8: "OwnedMonitors", 9: "CurrentContendedMonitor", 10: "Stop", 11: "Interrupt", 12: "SuspendCount", 13: "OwnedMonitorsStackDepthInfo", 14: "ForceEarlyReturn", 15: "IsVirtual"}},
	SetThreadGroupReference: {"ThreadGroupReference", map[byte]string{1: "Name", 2: "Parent", 3: "Children"}},
	SetArrayReference:       {"ArrayReference", map[byte]string{1: "Length", 2: "GetValues", 3: "SetValues"}},
	SetClassLoaderReference: {"ClassLoaderReference", map[byte]string{1: "VisibleClasses"}},
	SetEventRequest:         {"EventRequest", map[byte]string{1: "Set", 2: "Clear", 3: "ClearAllBreakpoints"}},
	SetStackFrame:           {"StackFrame", map[byte]string{1: "GetValues", 2: "SetValues", 3: "ThisObject", 4: "PopFrames"}},
	SetClassObjectReference: {"ClassObjectReference", map[byte]string{1: "ReflectedType"}},
	SetModuleReference:      {"ModuleReference", map[byte]string{1: "Name", 2: "ClassLoader"}},
	SetEvent:                {"Event", map[byte]string{100: "Composite"}},
	SetDDM:                  {"DDM", map[byte]string{1: "Chunk"}},
}

// CommandName returns "Set.Command" for a known command, or numbers otherwise.
func CommandName(set, cmd byte) string {
	s, ok := commandSets[set]
	if !ok {
		return fmt.Sprintf("%d.%d", set, cmd)
	}
	if n, ok := s.cmds[cmd]; ok {
		return s.name + "." + n
	}
	return fmt.Sprintf("%s.%d", s.name, cmd)
}

// The command table as values: every command of commandSets, named Cmd +
// the set (shortened) + the command, so no caller writes a command number.
var (
	CmdVMVersion               = Cmd{SetVirtualMachine, 1}  // VirtualMachine.Version
	CmdVMClassesBySignature    = Cmd{SetVirtualMachine, 2}  // VirtualMachine.ClassesBySignature
	CmdVMAllClasses            = Cmd{SetVirtualMachine, 3}  // VirtualMachine.AllClasses
	CmdVMAllThreads            = Cmd{SetVirtualMachine, 4}  // VirtualMachine.AllThreads
	CmdVMTopLevelThreadGroups  = Cmd{SetVirtualMachine, 5}  // VirtualMachine.TopLevelThreadGroups
	CmdVMDispose               = Cmd{SetVirtualMachine, 6}  // VirtualMachine.Dispose
	CmdVMIDSizes               = Cmd{SetVirtualMachine, 7}  // VirtualMachine.IDSizes
	CmdVMSuspend               = Cmd{SetVirtualMachine, 8}  // VirtualMachine.Suspend
	CmdVMResume                = Cmd{SetVirtualMachine, 9}  // VirtualMachine.Resume
	CmdVMExit                  = Cmd{SetVirtualMachine, 10} // VirtualMachine.Exit
	CmdVMCreateString          = Cmd{SetVirtualMachine, 11} // VirtualMachine.CreateString
	CmdVMCapabilities          = Cmd{SetVirtualMachine, 12} // VirtualMachine.Capabilities
	CmdVMClassPaths            = Cmd{SetVirtualMachine, 13} // VirtualMachine.ClassPaths
	CmdVMDisposeObjects        = Cmd{SetVirtualMachine, 14} // VirtualMachine.DisposeObjects
	CmdVMHoldEvents            = Cmd{SetVirtualMachine, 15} // VirtualMachine.HoldEvents
	CmdVMReleaseEvents         = Cmd{SetVirtualMachine, 16} // VirtualMachine.ReleaseEvents
	CmdVMCapabilitiesNew       = Cmd{SetVirtualMachine, 17} // VirtualMachine.CapabilitiesNew
	CmdVMRedefineClasses       = Cmd{SetVirtualMachine, 18} // VirtualMachine.RedefineClasses
	CmdVMSetDefaultStratum     = Cmd{SetVirtualMachine, 19} // VirtualMachine.SetDefaultStratum
	CmdVMAllClassesWithGeneric = Cmd{SetVirtualMachine, 20} // VirtualMachine.AllClassesWithGeneric
	CmdVMInstanceCounts        = Cmd{SetVirtualMachine, 21} // VirtualMachine.InstanceCounts
	CmdVMAllModules            = Cmd{SetVirtualMachine, 22} // VirtualMachine.AllModules

	CmdRefTypeSignature            = Cmd{SetReferenceType, 1}  // ReferenceType.Signature
	CmdRefTypeClassLoader          = Cmd{SetReferenceType, 2}  // ReferenceType.ClassLoader
	CmdRefTypeModifiers            = Cmd{SetReferenceType, 3}  // ReferenceType.Modifiers
	CmdRefTypeFields               = Cmd{SetReferenceType, 4}  // ReferenceType.Fields
	CmdRefTypeMethods              = Cmd{SetReferenceType, 5}  // ReferenceType.Methods
	CmdRefTypeGetValues            = Cmd{SetReferenceType, 6}  // ReferenceType.GetValues
	CmdRefTypeSourceFile           = Cmd{SetReferenceType, 7}  // ReferenceType.SourceFile
	CmdRefTypeNestedTypes          = Cmd{SetReferenceType, 8}  // ReferenceType.NestedTypes
	CmdRefTypeStatus               = Cmd{SetReferenceType, 9}  // ReferenceType.Status
	CmdRefTypeInterfaces           = Cmd{SetReferenceType, 10} // ReferenceType.Interfaces
	CmdRefTypeClassObject          = Cmd{SetReferenceType, 11} // ReferenceType.ClassObject
	CmdRefTypeSourceDebugExtension = Cmd{SetReferenceType, 12} // ReferenceType.SourceDebugExtension
	CmdRefTypeSignatureWithGeneric = Cmd{SetReferenceType, 13} // ReferenceType.SignatureWithGeneric
	CmdRefTypeFieldsWithGeneric    = Cmd{SetReferenceType, 14} // ReferenceType.FieldsWithGeneric
	CmdRefTypeMethodsWithGeneric   = Cmd{SetReferenceType, 15} // ReferenceType.MethodsWithGeneric
	CmdRefTypeInstances            = Cmd{SetReferenceType, 16} // ReferenceType.Instances
	CmdRefTypeClassFileVersion     = Cmd{SetReferenceType, 17} // ReferenceType.ClassFileVersion
	CmdRefTypeConstantPool         = Cmd{SetReferenceType, 18} // ReferenceType.ConstantPool
	CmdRefTypeModule               = Cmd{SetReferenceType, 19} // ReferenceType.Module

	CmdClassTypeSuperclass   = Cmd{SetClassType, 1} // ClassType.Superclass
	CmdClassTypeSetValues    = Cmd{SetClassType, 2} // ClassType.SetValues
	CmdClassTypeInvokeMethod = Cmd{SetClassType, 3} // ClassType.InvokeMethod
	CmdClassTypeNewInstance  = Cmd{SetClassType, 4} // ClassType.NewInstance

	CmdArrayTypeNewInstance = Cmd{SetArrayType, 1} // ArrayType.NewInstance

	CmdInterfaceTypeInvokeMethod = Cmd{SetInterfaceType, 1} // InterfaceType.InvokeMethod

	CmdMethodLineTable                = Cmd{SetMethod, 1} // Method.LineTable
	CmdMethodVariableTable            = Cmd{SetMethod, 2} // Method.VariableTable
	CmdMethodBytecodes                = Cmd{SetMethod, 3} // Method.Bytecodes
	CmdMethodIsObsolete               = Cmd{SetMethod, 4} // Method.IsObsolete
	CmdMethodVariableTableWithGeneric = Cmd{SetMethod, 5} // Method.VariableTableWithGeneric

	CmdObjRefReferenceType     = Cmd{SetObjectReference, 1}  // ObjectReference.ReferenceType
	CmdObjRefGetValues         = Cmd{SetObjectReference, 2}  // ObjectReference.GetValues
	CmdObjRefSetValues         = Cmd{SetObjectReference, 3}  // ObjectReference.SetValues
	CmdObjRefMonitorInfo       = Cmd{SetObjectReference, 5}  // ObjectReference.MonitorInfo
	CmdObjRefInvokeMethod      = Cmd{SetObjectReference, 6}  // ObjectReference.InvokeMethod
	CmdObjRefDisableCollection = Cmd{SetObjectReference, 7}  // ObjectReference.DisableCollection
	CmdObjRefEnableCollection  = Cmd{SetObjectReference, 8}  // ObjectReference.EnableCollection
	CmdObjRefIsCollected       = Cmd{SetObjectReference, 9}  // ObjectReference.IsCollected
	CmdObjRefReferringObjects  = Cmd{SetObjectReference, 10} // ObjectReference.ReferringObjects

	CmdStringRefValue = Cmd{SetStringReference, 1} // StringReference.Value

	CmdThreadName                        = Cmd{SetThreadReference, 1}  // ThreadReference.Name
	CmdThreadSuspend                     = Cmd{SetThreadReference, 2}  // ThreadReference.Suspend
	CmdThreadResume                      = Cmd{SetThreadReference, 3}  // ThreadReference.Resume
	CmdThreadStatus                      = Cmd{SetThreadReference, 4}  // ThreadReference.Status
	CmdThreadThreadGroup                 = Cmd{SetThreadReference, 5}  // ThreadReference.ThreadGroup
	CmdThreadFrames                      = Cmd{SetThreadReference, 6}  // ThreadReference.Frames
	CmdThreadFrameCount                  = Cmd{SetThreadReference, 7}  // ThreadReference.FrameCount
	CmdThreadOwnedMonitors               = Cmd{SetThreadReference, 8}  // ThreadReference.OwnedMonitors
	CmdThreadCurrentContendedMonitor     = Cmd{SetThreadReference, 9}  // ThreadReference.CurrentContendedMonitor
	CmdThreadStop                        = Cmd{SetThreadReference, 10} // ThreadReference.Stop
	CmdThreadInterrupt                   = Cmd{SetThreadReference, 11} // ThreadReference.Interrupt
	CmdThreadSuspendCount                = Cmd{SetThreadReference, 12} // ThreadReference.SuspendCount
	CmdThreadOwnedMonitorsStackDepthInfo = Cmd{SetThreadReference, 13} // ThreadReference.OwnedMonitorsStackDepthInfo
	CmdThreadForceEarlyReturn            = Cmd{SetThreadReference, 14} // ThreadReference.ForceEarlyReturn
	CmdThreadIsVirtual                   = Cmd{SetThreadReference, 15} // ThreadReference.IsVirtual

	CmdThreadGroupName     = Cmd{SetThreadGroupReference, 1} // ThreadGroupReference.Name
	CmdThreadGroupParent   = Cmd{SetThreadGroupReference, 2} // ThreadGroupReference.Parent
	CmdThreadGroupChildren = Cmd{SetThreadGroupReference, 3} // ThreadGroupReference.Children

	CmdArrayRefLength    = Cmd{SetArrayReference, 1} // ArrayReference.Length
	CmdArrayRefGetValues = Cmd{SetArrayReference, 2} // ArrayReference.GetValues
	CmdArrayRefSetValues = Cmd{SetArrayReference, 3} // ArrayReference.SetValues

	CmdClassLoaderVisibleClasses = Cmd{SetClassLoaderReference, 1} // ClassLoaderReference.VisibleClasses

	CmdEventRequestSet                 = Cmd{SetEventRequest, 1} // EventRequest.Set
	CmdEventRequestClear               = Cmd{SetEventRequest, 2} // EventRequest.Clear
	CmdEventRequestClearAllBreakpoints = Cmd{SetEventRequest, 3} // EventRequest.ClearAllBreakpoints

	CmdStackFrameGetValues  = Cmd{SetStackFrame, 1} // StackFrame.GetValues
	CmdStackFrameSetValues  = Cmd{SetStackFrame, 2} // StackFrame.SetValues
	CmdStackFrameThisObject = Cmd{SetStackFrame, 3} // StackFrame.ThisObject
	CmdStackFramePopFrames  = Cmd{SetStackFrame, 4} // StackFrame.PopFrames

	CmdClassObjectReflectedType = Cmd{SetClassObjectReference, 1} // ClassObjectReference.ReflectedType

	CmdModuleName        = Cmd{SetModuleReference, 1} // ModuleReference.Name
	CmdModuleClassLoader = Cmd{SetModuleReference, 2} // ModuleReference.ClassLoader

	CmdEventComposite = Cmd{SetEvent, 100} // Event.Composite

	CmdDDMChunk = Cmd{SetDDM, 1} // DDM.Chunk
)

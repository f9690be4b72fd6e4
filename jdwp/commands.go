package jdwp

import "fmt"

// Cmd names one JDWP command: its command set and command number.
type Cmd struct{ Set, Cmd byte }

func (c Cmd) String() string { return CommandName(c.Set, c.Cmd) }

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

// Commands used by the typed calls. Declared once here so the calls read as a table.
var (
	cmdVMVersion               = Cmd{1, 1}
	cmdVMClassesBySignature    = Cmd{1, 2}
	cmdVMAllClasses            = Cmd{1, 3}
	cmdVMAllThreads            = Cmd{1, 4}
	cmdVMTopLevelThreadGroups  = Cmd{1, 5}
	cmdVMDispose               = Cmd{1, 6}
	cmdVMIDSizes               = Cmd{1, 7}
	cmdVMSuspend               = Cmd{1, 8}
	cmdVMResume                = Cmd{1, 9}
	cmdVMExit                  = Cmd{1, 10}
	cmdVMCreateString          = Cmd{1, 11}
	cmdVMCapabilities          = Cmd{1, 12}
	cmdVMClassPaths            = Cmd{1, 13}
	cmdVMDisposeObjects        = Cmd{1, 14}
	cmdVMHoldEvents            = Cmd{1, 15}
	cmdVMReleaseEvents         = Cmd{1, 16}
	cmdVMCapabilitiesNew       = Cmd{1, 17}
	cmdVMRedefineClasses       = Cmd{1, 18}
	cmdVMSetDefaultStratum     = Cmd{1, 19}
	cmdVMAllClassesWithGeneric = Cmd{1, 20}
	cmdVMInstanceCounts        = Cmd{1, 21}
	cmdVMAllModules            = Cmd{1, 22}
)

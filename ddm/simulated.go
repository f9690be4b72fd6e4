package ddm

import "strings"

// What a VM's VirtualMachine.Version description says of a VM that
// ddmbridge simulates (package ddm/simvm writes it): a front end reads here
// that the VM's DDM data is made up, and says so on screen, without
// importing the simulator.

// DDMOnlyNote says what a simulated VM without a JVM is. It ends the
// VirtualMachine.Version description of such a VM, where a monitor finds it
// (DDMOnly) and a debugger's `version` shows it.
const DDMOnlyNote = "a simulated VM without --jvm answers DDM only: it runs no code and cannot be debugged " +
	"(start `ddmbridge simvm --jvm HOST:PORT` in front of a real JVM to debug)"

// DDMOnly reports whether a VirtualMachine.Version description is that of a
// simulated VM without a JVM.
func DDMOnly(description string) bool { return strings.HasSuffix(description, DDMOnlyNote) }

// SimulatedMark is in the VirtualMachine.Version description of every
// simulated VM (each profile, with or without a JVM, on a simulated device
// too): a front end finds there that what DDM tells of the VM — its heap,
// its allocation records — is simulated, and can say so (Simulated).
const SimulatedMark = "ddmbridge simulated VM"

// Simulated reports whether a VirtualMachine.Version description is that of
// a simulated VM.
func Simulated(description string) bool { return strings.Contains(description, SimulatedMark) }

package jdwp

import (
	"errors"
	"fmt"
)

// ErrorCode is a JDWP error constant, as carried in reply packets. It implements
// error, so callers can test with errors.Is(err, jdwp.ErrInvalidThread) or
// errors.As(err, &code).
type ErrorCode uint16

// The JDWP error constants.
const (
	ErrNone                          ErrorCode = 0
	ErrInvalidThread                 ErrorCode = 10
	ErrInvalidThreadGroup            ErrorCode = 11
	ErrInvalidPriority               ErrorCode = 12
	ErrThreadNotSuspended            ErrorCode = 13
	ErrThreadSuspended               ErrorCode = 14
	ErrThreadNotAlive                ErrorCode = 15
	ErrInvalidObject                 ErrorCode = 20
	ErrInvalidClass                  ErrorCode = 21
	ErrClassNotPrepared              ErrorCode = 22
	ErrInvalidMethodID               ErrorCode = 23
	ErrInvalidLocation               ErrorCode = 24
	ErrInvalidFieldID                ErrorCode = 25
	ErrInvalidFrameID                ErrorCode = 30
	ErrNoMoreFrames                  ErrorCode = 31
	ErrOpaqueFrame                   ErrorCode = 32
	ErrNotCurrentFrame               ErrorCode = 33
	ErrTypeMismatch                  ErrorCode = 34
	ErrInvalidSlot                   ErrorCode = 35
	ErrDuplicate                     ErrorCode = 40
	ErrNotFound                      ErrorCode = 41
	ErrInvalidModule                 ErrorCode = 42
	ErrInvalidMonitor                ErrorCode = 50
	ErrNotMonitorOwner               ErrorCode = 51
	ErrInterrupt                     ErrorCode = 52
	ErrInvalidClassFormat            ErrorCode = 60
	ErrCircularClassDefinition       ErrorCode = 61
	ErrFailsVerification             ErrorCode = 62
	ErrAddMethodNotImplemented       ErrorCode = 63
	ErrSchemaChangeNotImplemented    ErrorCode = 64
	ErrInvalidTypestate              ErrorCode = 65
	ErrHierarchyChangeNotImplemented ErrorCode = 66
	ErrDeleteMethodNotImplemented    ErrorCode = 67
	ErrUnsupportedVersion            ErrorCode = 68
	ErrNamesDontMatch                ErrorCode = 69
	ErrClassModifiersChangeNotImpl   ErrorCode = 70
	ErrMethodModifiersChangeNotImpl  ErrorCode = 71
	ErrClassAttributeChangeNotImpl   ErrorCode = 72
	ErrNotImplemented                ErrorCode = 99
	ErrNullPointer                   ErrorCode = 100
	ErrAbsentInformation             ErrorCode = 101
	ErrInvalidEventType              ErrorCode = 102
	ErrIllegalArgument               ErrorCode = 103
	ErrOutOfMemory                   ErrorCode = 110
	ErrAccessDenied                  ErrorCode = 111
	ErrVMDead                        ErrorCode = 112
	ErrInternal                      ErrorCode = 113
	ErrUnattachedThread              ErrorCode = 115
	ErrInvalidTag                    ErrorCode = 500
	ErrAlreadyInvoking               ErrorCode = 502
	ErrInvalidIndex                  ErrorCode = 503
	ErrInvalidLength                 ErrorCode = 504
	ErrInvalidString                 ErrorCode = 506
	ErrInvalidClassLoader            ErrorCode = 507
	ErrInvalidArray                  ErrorCode = 508
	ErrTransportLoad                 ErrorCode = 509
	ErrTransportInit                 ErrorCode = 510
	ErrNativeMethod                  ErrorCode = 511
	ErrInvalidCount                  ErrorCode = 512
)

var errorNames = map[ErrorCode]string{
	ErrNone:                          "NONE",
	ErrInvalidThread:                 "INVALID_THREAD",
	ErrInvalidThreadGroup:            "INVALID_THREAD_GROUP",
	ErrInvalidPriority:               "INVALID_PRIORITY",
	ErrThreadNotSuspended:            "THREAD_NOT_SUSPENDED",
	ErrThreadSuspended:               "THREAD_SUSPENDED",
	ErrThreadNotAlive:                "THREAD_NOT_ALIVE",
	ErrInvalidObject:                 "INVALID_OBJECT",
	ErrInvalidClass:                  "INVALID_CLASS",
	ErrClassNotPrepared:              "CLASS_NOT_PREPARED",
	ErrInvalidMethodID:               "INVALID_METHODID",
	ErrInvalidLocation:               "INVALID_LOCATION",
	ErrInvalidFieldID:                "INVALID_FIELDID",
	ErrInvalidFrameID:                "INVALID_FRAMEID",
	ErrNoMoreFrames:                  "NO_MORE_FRAMES",
	ErrOpaqueFrame:                   "OPAQUE_FRAME",
	ErrNotCurrentFrame:               "NOT_CURRENT_FRAME",
	ErrTypeMismatch:                  "TYPE_MISMATCH",
	ErrInvalidSlot:                   "INVALID_SLOT",
	ErrDuplicate:                     "DUPLICATE",
	ErrNotFound:                      "NOT_FOUND",
	ErrInvalidModule:                 "INVALID_MODULE",
	ErrInvalidMonitor:                "INVALID_MONITOR",
	ErrNotMonitorOwner:               "NOT_MONITOR_OWNER",
	ErrInterrupt:                     "INTERRUPT",
	ErrInvalidClassFormat:            "INVALID_CLASS_FORMAT",
	ErrCircularClassDefinition:       "CIRCULAR_CLASS_DEFINITION",
	ErrFailsVerification:             "FAILS_VERIFICATION",
	ErrAddMethodNotImplemented:       "ADD_METHOD_NOT_IMPLEMENTED",
	ErrSchemaChangeNotImplemented:    "SCHEMA_CHANGE_NOT_IMPLEMENTED",
	ErrInvalidTypestate:              "INVALID_TYPESTATE",
	ErrHierarchyChangeNotImplemented: "HIERARCHY_CHANGE_NOT_IMPLEMENTED",
	ErrDeleteMethodNotImplemented:    "DELETE_METHOD_NOT_IMPLEMENTED",
	ErrUnsupportedVersion:            "UNSUPPORTED_VERSION",
	ErrNamesDontMatch:                "NAMES_DONT_MATCH",
	ErrClassModifiersChangeNotImpl:   "CLASS_MODIFIERS_CHANGE_NOT_IMPLEMENTED",
	ErrMethodModifiersChangeNotImpl:  "METHOD_MODIFIERS_CHANGE_NOT_IMPLEMENTED",
	ErrClassAttributeChangeNotImpl:   "CLASS_ATTRIBUTE_CHANGE_NOT_IMPLEMENTED",
	ErrNotImplemented:                "NOT_IMPLEMENTED",
	ErrNullPointer:                   "NULL_POINTER",
	ErrAbsentInformation:             "ABSENT_INFORMATION",
	ErrInvalidEventType:              "INVALID_EVENT_TYPE",
	ErrIllegalArgument:               "ILLEGAL_ARGUMENT",
	ErrOutOfMemory:                   "OUT_OF_MEMORY",
	ErrAccessDenied:                  "ACCESS_DENIED",
	ErrVMDead:                        "VM_DEAD",
	ErrInternal:                      "INTERNAL",
	ErrUnattachedThread:              "UNATTACHED_THREAD",
	ErrInvalidTag:                    "INVALID_TAG",
	ErrAlreadyInvoking:               "ALREADY_INVOKING",
	ErrInvalidIndex:                  "INVALID_INDEX",
	ErrInvalidLength:                 "INVALID_LENGTH",
	ErrInvalidString:                 "INVALID_STRING",
	ErrInvalidClassLoader:            "INVALID_CLASS_LOADER",
	ErrInvalidArray:                  "INVALID_ARRAY",
	ErrTransportLoad:                 "TRANSPORT_LOAD",
	ErrTransportInit:                 "TRANSPORT_INIT",
	ErrNativeMethod:                  "NATIVE_METHOD",
	ErrInvalidCount:                  "INVALID_COUNT",
}

// String returns the JDWP name of the code, e.g. "INVALID_THREAD".
func (e ErrorCode) String() string {
	if n, ok := errorNames[e]; ok {
		return n
	}
	return fmt.Sprintf("ERROR_%d", uint16(e))
}

func (e ErrorCode) Error() string { return fmt.Sprintf("JDWP error %d (%s)", uint16(e), e.String()) }

// CommandError is the error a call returns when the VM answered with a JDWP error.
// It unwraps to the ErrorCode.
type CommandError struct {
	Command string // e.g. "ThreadReference.Frames"
	Code    ErrorCode
}

func (e *CommandError) Error() string {
	return fmt.Sprintf("%s: %s", e.Command, e.Code.Error())
}

func (e *CommandError) Unwrap() error { return e.Code }

// Code returns the JDWP error code carried by err, or ErrNone.
func Code(err error) ErrorCode {
	var c ErrorCode
	if errors.As(err, &c) {
		return c
	}
	return ErrNone
}

// VendorCommandError is returned, with nothing sent, for a command outside
// the standard ranges (see Cmd.Standard) on a connection whose VM has not
// been identified as speaking it (see Conn.AllowVendorCommands).
type VendorCommandError struct {
	Cmd  Cmd
	Addr string
}

func (e *VendorCommandError) Error() string {
	return fmt.Sprintf("jdwp: %s (set 0x%02X, command %d) not sent to %s: the VM has not shown it speaks it (only Android VMs speak DDM; HotSpot's agent crashes on such packets, JDK-8382537)",
		e.Cmd, e.Cmd.Set, e.Cmd.Cmd, e.Addr)
}

// Is makes errors.Is(err, ErrVendorCommand) true for a VendorCommandError.
func (e *VendorCommandError) Is(target error) bool { return target == ErrVendorCommand }

// ErrVendorCommand matches every VendorCommandError.
var ErrVendorCommand = errors.New("jdwp: vendor command not sent to a VM not known to speak it")

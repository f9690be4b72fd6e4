package dap

import godap "github.com/google/go-dap"

// Error ids of error responses. Clients show the message; the id says which
// family of failure it is and is stable across releases.
const (
	// Protocol-level failures.
	ErrUnsupportedCommand = 1001 // the adapter does not implement the request
	ErrMalformedRequest   = 1002 // the request could not be decoded
	ErrInternal           = 1003 // a handler panicked; the session goes on
	ErrNoDebuggee         = 1004 // the request needs a launched or attached VM
	ErrNotStopped         = 1005 // the request needs the VM to be stopped
	ErrBadState           = 1006 // the request is out of order (e.g. a second launch)
	ErrCancelled          = 1007 // the client cancelled the request
	ErrVMCannot           = 1008 // the VM lacks the capability the request needs

	// Session start.
	ErrFailedToLaunch = 2001
	ErrFailedToAttach = 2002

	// Requests on a running session.
	ErrUnableToSetBreakpoints = 3001
	ErrUnableToListThreads    = 3002
	ErrUnableToStackTrace     = 3003
	ErrUnableToListVariables  = 3004
	ErrUnableToEvaluate       = 3005
	ErrUnableToResume         = 3006 // continue, next, stepIn, stepOut, restartFrame
	ErrUnableToPause          = 3007
	ErrUnableToDisconnect     = 3008
	ErrUnableToTerminate      = 3009
	ErrUnableToExceptionInfo  = 3010
	ErrUnableToSetVariable    = 3011 // setVariable, setExpression
	ErrUnableToComplete       = 3012 // completions
	ErrUnableToStepInTargets  = 3013
	ErrUnableToSource         = 3014 // source, loadedSources
	ErrUnableToRedefine       = 3015 // redefineClasses (hot code replace)
	ErrUnableToDataBreakpoint = 3016 // dataBreakpointInfo, setDataBreakpoints
	ErrUnableToStartDebugging = 3017 // attachVM
	ErrUnableToDumpHeap       = 3018 // dumpHeap

	// DDM requests.
	ErrNoDDM = 4001 // the VM does not speak DDM
)

// errorSummaries are the short messages of error responses, by id.
var errorSummaries = map[int]string{
	ErrUnsupportedCommand:     "Unsupported command",
	ErrMalformedRequest:       "Malformed request",
	ErrInternal:               "Internal error",
	ErrNoDebuggee:             "No debuggee",
	ErrNotStopped:             "Debuggee is running",
	ErrBadState:               "Request out of order",
	ErrCancelled:              "cancelled",
	ErrVMCannot:               "Not supported by this VM",
	ErrFailedToLaunch:         "Failed to launch",
	ErrFailedToAttach:         "Failed to attach",
	ErrUnableToSetBreakpoints: "Unable to set breakpoints",
	ErrUnableToListThreads:    "Unable to list threads",
	ErrUnableToStackTrace:     "Unable to produce stack trace",
	ErrUnableToListVariables:  "Unable to list variables",
	ErrUnableToEvaluate:       "Unable to evaluate expression",
	ErrUnableToResume:         "Unable to resume",
	ErrUnableToPause:          "Unable to pause",
	ErrUnableToDisconnect:     "Unable to disconnect",
	ErrUnableToTerminate:      "Unable to terminate",
	ErrUnableToExceptionInfo:  "Unable to get exception info",
	ErrUnableToSetVariable:    "Unable to set variable",
	ErrUnableToComplete:       "Unable to complete",
	ErrUnableToStepInTargets:  "Unable to list step-in targets",
	ErrUnableToSource:         "Unable to produce source",
	ErrUnableToRedefine:       "Hot code replace failed",
	ErrUnableToDataBreakpoint: "Unable to set data breakpoint",
	ErrUnableToStartDebugging: "Unable to start debugging",
	ErrUnableToDumpHeap:       "Unable to dump the heap",
	ErrNoDDM:                  "DDM not available",
}

// showUser says whether an error response asks the client to show its
// message to the user (a notification in VS Code), for error id answering
// request m (nil when unknown). Errors the client shows where the user
// asked anyway, or that are no news to the user, do not:
//   - evaluation in the Debug Console, a watch or a hover: the console
//     and the watch show the message in place, a hover shows nothing;
//   - what the client asks by itself and shows in place: completions as
//     the user types, breakpoint locations, whether a variable can have
//     a data breakpoint, a variable's children;
//   - a refused hot code replace: the editor that asked reports it (the
//     hotCodeReplace event), a toast more would say it twice;
//   - a request before a debuggee exists, after a failed launch, a request
//     the user cancelled, a VM without DDM (the editor asks every session).
func showUser(id int, m godap.RequestMessage) bool {
	switch id {
	case ErrNoDDM, ErrNoDebuggee, ErrCancelled, ErrUnableToRedefine:
		return false
	}
	switch r := m.(type) {
	case *godap.EvaluateRequest:
		switch r.Arguments.Context {
		case "repl", "watch", "hover":
			return false
		}
	case *godap.CompletionsRequest, *godap.BreakpointLocationsRequest, *godap.DataBreakpointInfoRequest, *godap.VariablesRequest:
		return false
	}
	return true
}

// Package dap is ddmbridge's Debug Adapter Protocol server, built on go-dap.
//
// It is a translator: it turns DAP requests from an editor into reads of the
// VM model of package jdwp/mirror and into JDWP requests (breakpoints,
// steps, suspension), and turns JDWP events and DDM model changes into DAP
// events. What a session holds is DAP's: frame and variable handles, thread
// numbers, breakpoints, stepping and stop state, sources. The VM model —
// types, methods, fields, line and variable tables, hierarchy, frames,
// values and their caches — lives in the mirror, every method run in the VM
// goes through the debugger's road (Target.Invoke); evaluation (a frame's
// names, invocation, assignment, lambdas, completions) is package
// jdwp/eval's, and presentVM (present.go) is a thin adapter over the mirror.
// It owns no
// sockets to VMs: connections come from a [Backend] — the bridge's monitor,
// or [DirectBackend] (a TCP dial) for a stand-alone session — and launched
// JVMs connect back to a loopback listener the session opens for them.
//
// What it must not touch: the JDWP wire (package jdwp: dap names its ids,
// values, tags and error codes only, and holds no connection — the
// debugger layer and the mirror reach the VM; internal/layering holds dap
// to this), the VM model and its caches (package jdwp/mirror: dap asks, it
// does not model types or values itself), any source language's rules (the
// seam, package jdwp/lang, says which classes hold a file, where a class's
// source is, what a frame's variables are called; a language's engine
// parses conditions, log messages and expressions), DDM chunk layouts
// (package ddm), VM discovery and multiplexing (package bridge), the
// simulators and test harnesses.
//
// # Serving
//
// [NewServer] and [Server.ServeConn] run one session over any stream, so
// `ddmbridge dap` (stdio) and `ddmbridge serve` (a socket) share them. A
// session that ends — disconnect, end of stream, cancelled context — never
// leaves the VM suspended: a launched JVM is terminated, an attached VM has
// every request the session made cleared, every suspension it holds resumed,
// and is disposed.
//
// Requests are handled one at a time on the request loop, except those that
// may run methods in the VM (evaluate, variables, setVariable,
// setExpression, completions: the lanes table in server.go): they run off
// the loop, in order per thread (the thread of their frame or scope; others
// share one lane), so a slow toString, watch or evaluation never delays
// threads, stackTrace, scopes, pause, continue or a request about another
// thread; the memory view's requests run in a lane of their own (a count
// of a large heap takes seconds). Who holds each thread suspended, and how a method is run in one,
// is package jdwp/debugger's (the suspension ledger): dap asks it, and
// sends no Suspend or Resume of its own. The routes table (server.go) lists
// each request once with the state the debuggee must be in (Delve's
// grouping): any time (initialize, launch, attach, disconnect, attachVM,
// threads: empty without a debuggee),
// with a debuggee (configurationDone, setBreakpoints, breakpointLocations,
// setFunctionBreakpoints, setExceptionBreakpoints, setDataBreakpoints,
// pause, terminate, source, loadedSources, redefineClasses, the
// ddm requests, memoryView, trackInstances, allocations), stopped
// (instanceCounts, instances, continue, next, stepIn, stepOut, stepInTargets,
// stackTrace, scopes, variables, evaluate, setVariable, setExpression,
// completions, restartFrame, exceptionInfo, dataBreakpointInfo). Most
// handlers return their response's body or an error (reply): the error is
// answered with the route's error id, or the one a requestError carries,
// prefixed with the command. Handlers whose answer is ordered with events
// (pause, configurationDone, the resuming requests, redefineClasses,
// launch and attach) send it themselves. Anything else gets an error response with id
// ErrUnsupportedCommand; a request that cannot be decoded gets
// ErrMalformedRequest; a handler that panics gets ErrInternal and the
// session goes on. cancel is answered by the reader goroutine at once: the
// request it names (being handled or still queued) has its context
// cancelled and answers with an error whose message is "cancelled". Error
// ids are listed in errors.go.
//
// # The client's conventions
//
// Inside the adapter lines and columns count from 1, paths are file
// system paths and variables carry their type. What a client chose in
// initialize — linesStartAt1 or columnsStartAt1 false, pathFormat "uri",
// no supportsVariableType — is applied in one place, package
// dap/clientview: each request is converted as it is decoded (handle), each
// message as it is encoded (write), so no handler converts anything.
// Opt-in events the client did not announce (progress, invalidated,
// memory) are dropped there too. Errors ask the client to show them
// (showUser, errors.go) only when they are news: not for evaluation in
// the console, a watch or a hover, a refused hot code replace (the editor
// that asked reports it), a request without a debuggee or a cancelled one.
// docs/editors.md says how each editor starts the adapter;
// TestDAPConformance validates sessions in each convention against the
// official DAP schema (testdata/dapschema).
//
// # Launch and attach
//
// The arguments are [LaunchConfig] and [AttachConfig]; their field comments
// are the user documentation. A launch starts java with
// -agentlib:jdwp=...,server=n,suspend=y connecting back to the session,
// through the client's runInTerminal when "console" asks for a terminal and
// the client supports it; its stdout and stderr otherwise become output
// events. A launch with "packageName" starts an Android app instead,
// through the backend's [AndroidLauncher] (the monitor, with adb), with
// progress events while it waits, then attaches to the app's VM and lets
// it run at configurationDone; a backend without one fails the launch
// saying to run ddmbridge serve. The answer to launch and attach is, in
// order: a process event, a capabilities event if the VM lacks something
// initialize announced, the response, the initialized event.
//
// Capabilities the VM lacks (from CapabilitiesNew) are withdrawn with
// explicit false values: supportsRestartFrame (CanPopFrames),
// supportsDataBreakpoints (CanWatchFieldAccess/Modification),
// supportsStepInTargetsRequest (CanGetBytecodes and CanGetConstantPool),
// supportsHotCodeReplace (CanRedefineClasses). A request that needs one
// fails with ErrVMCannot and a message naming it: "this VM cannot pop frames
// (CanPopFrames is false)".
//
// # Behaviour
//
// What the adapter does with each request — how the VM runs and stops
// (package jdwp/debugger's rules: a stop's hold, continue and steps,
// conditions within a budget), what the Debug
// Console evaluates (package jdwp/eval over jdwp/lang/java/expr), how values and
// scopes are shown (package jdwp/mirror's presentation), where sources
// come from (package jdwp/srclookup; jdwp/lang/java/outline for classes without one),
// and the custom requests and events (DDM, hot code replace, heap dumps,
// attachVM) with their bodies — is user documentation, in docs/dap.md.
// The DDM event bodies are the objects of the monitor's JSON-RPC API, one
// schema defined in package ddm (ddm/view.go).
//
// Logging goes through zerolog with component "dap"; Config.TraceMessages
// logs every DAP message at trace level with kind "dap.msg".
package dap

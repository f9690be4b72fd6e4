// Package dap is ddmbridge's Debug Adapter Protocol server, built on go-dap.
//
// It is a translator: it turns DAP requests from an editor into reads of the
// VM model of package jdwp/mirror and into JDWP requests (breakpoints,
// steps, suspension), and turns JDWP events and DDM model changes into DAP
// events. What a session holds is DAP's: frame and variable handles, thread
// numbers, breakpoints, stepping and stop state, sources. The VM model —
// types, methods, fields, line and variable tables, hierarchy, frames,
// values, invocation bookkeeping and their caches — lives in the mirror;
// frameEnv (evalenv.go), the expression engine's environment, and
// presentVM (present.go) are thin adapters over it. It owns no
// sockets to VMs: connections come from a [Backend] — the bridge's monitor,
// or [DirectBackend] (a TCP dial) for a stand-alone session — and launched
// JVMs connect back to a loopback listener the session opens for them.
//
// What it must not touch: the JDWP wire (package jdwp), the VM model and
// its caches (package jdwp/mirror: dap asks, it does not model types or
// values itself), DDM chunk layouts (package ddm), VM discovery and
// multiplexing (package bridge). Expressions
// are evaluated by package dap/expr, which knows nothing of DAP or JDWP.
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
// thread. Who holds each thread suspended, and how a method is run in one,
// is package jdwp/debugger's (the suspension ledger): dap asks it, and
// sends no Suspend or Resume of its own. The routes table (server.go) lists
// each request once with the state the debuggee must be in (Delve's
// grouping): any time (initialize, launch, attach, disconnect, attachVM),
// with a debuggee (configurationDone, setBreakpoints, breakpointLocations,
// setFunctionBreakpoints, setExceptionBreakpoints, setDataBreakpoints,
// threads, pause, terminate, source, loadedSources, redefineClasses, the
// ddm requests), stopped (continue, next, stepIn, stepOut, stepInTargets,
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
// # Running and stopping
//
// Requests whose events may stop suspend only the event's thread, and each
// thread's events are handled in order on a goroutine of their own
// (suspend.go): a condition or logpoint evaluating in one thread never
// waits for another thread's event, so several threads hitting a
// method-calling condition together cannot freeze the VM. When a hit
// stops, by default (suspendAllThreads true) the rest of the VM is
// suspended too, once the evaluations other threads run have finished;
// continue and the steps resume it all, so continue answers
// allThreadsContinued and steps are followed by a continued event. With
// suspendAllThreads false a stop holds its thread alone (allThreadsStopped
// false), and continue, the steps and pause act on the thread they name.
// A stop is never reported between a resuming request's answer and its
// resume. A step belongs to its thread: other threads' stops do not cancel
// it, and it ends with a step stop of its own thread. Threads are
// listed by name alone: the editor shows whether each is paused (and why)
// or running from the stopped and continued events, and a state in the
// name went stale while the thread ran on; the JDWP states and CPU times
// are the monitor's vm/threads. hideSystemThreads leaves the VM's own
// threads out.
//
// A condition or log message whose evaluation does not finish within
// Config.EvalTimeout (10 s; a method waiting for a lock a stopped thread
// holds, say) is not waited for: the hit does not stop, a message says
// why, and the thread is resumed when the method returns. An evaluate
// request that is cancelled or times out likewise leaves its method
// running; requests on that thread fail in words until it returns.
//
// A launch lets the VM run until its main class is prepared (nothing of
// the program has run) before it answers: a JVM that exits first fails the
// launch with its exit code and stderr, and classPaths entries that do not
// exist fail it before java starts. Frames of methods a redefine replaced
// show as obsolete; restartFrame re-enters the new code.
//
// Stepping (steps.go): step-into passes over the classes of stepFilters
// (the JDK's by default) with JDWP class exclusions, and over synthetic
// methods, static initializers and constructors when asked, by stepping out
// of them and on. stepInTargets lists the calls left on the current line,
// from the method's bytecode; stepIn with a targetId stops when that method
// is entered. restartFrame pops frames (PopFrames) and steps into the call
// again, stopping with reason "restart".
//
// A line breakpoint on a line without code (blank, comment, braces) moves
// to the next line with code (movebp.go).
// breakpointLocations offers a line's start and the body of each lambda on
// it; a breakpoint with a column stops in the enclosing method or in the
// lambdas only (columns.go). A step into a lambda passes over its hidden
// proxy class, and a step out that lands in filtered library code (stream
// internals) goes on out to the program's code (lambdasteps.go).
//
// Line breakpoints are resolved against the classes compiled from the
// source file (its package declaration plus the file name, and the classes
// nested in it): the loaded ones at once, the others when they are prepared,
// which a breakpoint event ("changed", verified) reports. Function
// breakpoints ("Class.method", with "(I)V" or "(int, String)" to pick an
// overload) are set at the first line of the matching methods in the same
// way and stop with reason "function breakpoint". Data breakpoints watch a
// field of one object, or a static field, for reads and writes (reason
// "data breakpoint", the text saying what changed). Exception breakpoints
// take "caught" and "uncaught" filters whose conditions are class patterns
// or Java conditions with "exception" bound, and exceptionOptions naming
// classes with a break mode; exceptionInfo gives the class, getMessage(),
// getStackTrace() and the causes.
//
// Conditions, hit conditions and logpoint {expressions} are evaluated in Go
// over JDWP (package dap/expr); a condition that fails to evaluate stops,
// with the error printed. A hitCondition "N" or "== N" stops on the Nth hit
// only; ">= N", "> N", "<= N", "< N" and "% N" compare the count of hits
// (hits whose condition held).
//
// # Expressions
//
// evaluate (repl, watch, hover, clipboard), conditions, logpoints,
// setVariable and setExpression share one engine: literals, locals, this,
// fields and statics by simple or qualified class names, arrays, every
// operator with Java's promotions, string concatenation with toString(),
// casts, instanceof (with patterns), ?:, method calls with overloads
// resolved as JLS 15.12.2 does, new objects and arrays, class literals, and
// in the REPL assignment (=, +=, ++). Lambdas and method references are
// refused by name. Methods run in the stopped thread alone
// (InvokeSingleThreaded); breakpoints they hit do not stop. A hover runs no
// methods unless evaluateHoverMethods is set. Results are variables the
// client can expand; valueFormattingOptions hex shows integers in
// hexadecimal in evaluate, variables and stackTrace (whose format can also
// ask for parameters and lines). completions lists locals and members. An
// evaluation that runs long shows progress (cancellable) after 300 ms.
//
// Scopes are "Locals" (this first, then the visible local variables) and
// "Static" (the static fields of the frame's class). Values show as Java
// writes them; strings quoted; boxed values as their primitive (expandable to
// their field); arrays as "int[250] (id=7)" with indexedVariables for paging
// with start/count; other objects as package jdwp/mirror presents them:
// collections and maps as "ArrayList (size=3)" whose children are the
// elements or "key -> value" entries (paged with indexedVariables, gathered
// by toArray() in the stopped thread) and a "<raw>" child with the fields;
// enums as Status.NEW, records as Point[x=1, y=2], Optional, atomics,
// string builders, Class, Thread and exceptions by their content; toString()
// for classes that override it (showToString, on by default; never in
// hovers, never on an object whose monitor another thread holds, each run
// bounded by invokeTimeout); else "Node (id=9)" with the fields, inherited
// ones included. Stopped on an exception, the top frame's Locals start with
// <exception>. Frames are named with their parameter types
// (showFrameParameterTypes).
//
// # DDM
//
// When the VM speaks DDM (an Android VM, or one behind the monitor or the
// simulated DDM VM), a session can stream the VM's DDM state as custom
// events. The backend's DDM client is used when it has one; otherwise the
// session attaches one to its own connection, but only if the VM names
// itself Android's in VirtualMachine.Version (jdwp.VersionInfo.Android):
// HotSpot's agent crashes on DDM's command set 0xC7 (JDK-8382537), so a
// plain VM is never sent one. A plain VM, or an Android VM that answers
// HELO with a JDWP error, is plain JDWP: the DDM requests then fail with
// ErrNoDDM.
//
// Custom requests:
//
//	ddmUpdates {"threads": bool?, "heapInfo": bool?, "heapMap": bool?}
//	    Turns events on or off; a field left out keeps its setting. The
//	    response body is {"threads", "heapInfo", "heapMap", "vm", "app", "pid"}:
//	    the settings in force and the VM's identity from HELO. Turning
//	    threads on also sends a ddmThreads event with the current threads.
//	ddmGC {}
//	    Asks the VM to collect garbage (HPGC); heap events follow if on.
//	ddmVM {}
//	    Answers {"id"}: the monitor's id of the VM the session debugs, ""
//	    without a monitor. A JVM a launch starts through the monitor is
//	    handed to it (listed and watched like any other VM). The editor
//	    reads that VM's threads (states, CPU times), heap info and heap
//	    maps through the monitor's control API (vm/threads, vm/heap,
//	    vm/heapMap notifications: docs/rpc.md), which serves plain JVMs
//	    too; a session without a monitor has only the DDM events below.
//	    A session that launched an Android app (packageName) ends it with
//	    am force-stop on terminate, and on disconnect with terminateDebuggee.
//	redefineClasses {"classFiles": [path]?, "directory": path?}
//	    Hot code replace: each .class file (and every one under directory)
//	    replaces the loaded class of the same name (its this_class) with
//	    RedefineClasses, all at once. The body, also sent as a
//	    hotCodeReplace event, is {"success", "message", "classes",
//	    "skipped"?: [{"file", "class"?, "reason"}], "error"?}; when the VM
//	    refuses, the error response and the event say what in words and
//	    give the JDWP error name: "hot code replace refused: adding a
//	    method is not supported by this VM (ADD_METHOD_NOT_IMPLEMENTED);
//	    classes: Loop". Classes not loaded are skipped (they load the new
//	    file). initialize announces "supportsHotCodeReplace": true.
//	dumpHeap {"path"?, "live"?, "top"?, "force"?}
//	    Writes an HPROF dump of the debuggee's heap to path (a new file,
//	    mode 0600, never through a symlink; an existing file is refused
//	    unless force; a temporary one when left out) and answers {"path", "bytes", "format",
//	    "objects", "top": [{"class", "instances", "bytes"}]}: the top of its
//	    class histogram, biggest first (10 rows unless top says). Through
//	    the monitor the dump is the monitor's (HotSpot's attach mechanism for
//	    a local JVM, HPDS for a DDM VM); a stand-alone session dumps the
//	    local HotSpot VM it launched or attached to. Progress events show
//	    while it runs.
//	attachVM {"vm": id, "name"?}
//	    Opens a child session for another VM the monitor watches: the
//	    adapter sends the client a startDebugging request with an attach
//	    configuration {"type", "request": "attach", "name", "vm",
//	    "sourcePaths", options…}. Fails when the client does not announce
//	    supportsStartDebuggingRequest.
//
// Custom events:
//
//	hotCodeReplace {"success", "message", "classes", "skipped"?, "error"?}
//	    The result of every redefineClasses.
//	ddmThreads {"id", "threads": [{"id", "name", "state", "suspended",
//	            "daemon"?, "tid"?, "utime"?, "stime"?}], "note"?}
//	    Every thread the VM reported, by DDM thread id, after each change
//	    (THCR, THDE, THNM, THST; thread states are polled while on, as DDMS
//	    does, by the VM's one poller: the monitor's, or the session's own).
//	ddmHeapInfo {"id", "heaps": [{"heapId", "timestampMs", "reason",
//	            "maxBytes", "sizeBytes", "allocatedBytes", "allocatedObjects"}]}
//	    After every GC (HPIF).
//	ddmHeapMap {"id", "heapId", "perObject", "styles", "pieces", "totals",
//	            "legend"}
//	    One heap's map after every GC (HPST…HPSG…HPEN).
//
// The event bodies are the objects of the monitor's JSON-RPC API, one schema
// defined in package ddm (ddm/view.go) and documented in docs/rpc.md (vm/threads,
// vm/heapInfo, vm/heapMap): "id" is the monitor's VM id, or, in a session
// without the monitor, the VM's address; a thread's "state" is a DDM state
// name or "unknown"; a heap map's pieces carry "blocks", pairs of an index
// into "styles" (kind, solidity, colour) and a length in units, and the
// "legend" every renderer shows.
//
// # Sources
//
// Without sourcePaths, sources are found without configuration (package
// dap/srclookup): the workspace folders' .java files by package declaration,
// -sources.jar and src.zip beside the class path, the JDK's lib/src.zip
// (archive entries are served by sourceReference). A class whose source is
// found nowhere gets a sourceReference; the
// source request answers with an outline of the class (declaration, fields,
// methods with signatures) and each method's bytecode disassembled with
// resolved names (package dap/classfile). loadedSources lists the loaded
// top-level classes, with progress events. A frame in an outline points at
// the outline line of its instruction.
//
// Logging goes through zerolog with component "dap"; Config.TraceMessages
// logs every DAP message at trace level with kind "dap.msg".
package dap

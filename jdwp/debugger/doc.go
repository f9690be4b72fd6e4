// Package debugger is the layer between an editor protocol (package dap)
// and the VM model (package jdwp/mirror) that owns what a debugger does to
// the program it debugs: who holds each thread suspended, and how a method
// is run for the debugger without leaving a thread suspended that the user
// did not stop. It knows JDWP through the mirror and the connection, never
// an editor protocol: any front end could sit on it.
//
// It owns:
//
//   - the suspension ledger (Suspensions): every suspension the session
//     holds, by owner — the VM-wide hold of a stop or a pause, a single
//     thread's hold (a stop or pause with suspendAllThreads off), and an
//     event set's own suspension while its handling decides (a condition, a
//     logpoint) — and the JDWP Suspend/Resume commands that change them.
//     Nothing else in the session sends Suspend or Resume. An event set that
//     does not stop is released with its thread's resume alone when the
//     ledger knows the thread's count is the set's 1 (and the VM's counts
//     have shown to be the ledger's), else from the count the VM reports.
//
//   - the one invocation road (Target.Invoke, Target.NewInstance,
//     invoke.go): the only way anything — presentation, conditions, log
//     messages, evaluation, the memory view — runs a method in the VM; its
//     bookkeeping (which threads run a method for the debugger, which were
//     left running past a deadline, what to do when each returns) and the
//     ledger's part (Suspensions.Enter/Exit): one invocation at a time per
//     thread; the thread's
//     suspend count brought to exactly 1 before InvokeMethod (the agent's
//     one implicit resume then starts the call) and set back from the ledger
//     when the method returns, however late — so a stop, a continue or a
//     cancel that happened meanwhile is honoured and no thread is left
//     suspended; a thread running a method for the debugger is kept running
//     when the VM is suspended for another thread's stop, so a stop never
//     waits for an evaluation and an evaluation never hangs on a stop; and
//     a VM-wide resume leaves its count as it was, so a method that has
//     just returned (its reply not read yet) keeps its thread where it
//     stopped.
//
//   - ending an invocation whose caller stopped waiting (Suspensions.Abort),
//     when that does no harm: a method looping in its own frame is made to
//     return at once, as a debugger's force-return does (HotSpot holds
//     ThreadReference.Stop and Interrupt back until an invocation ends).
//     Frames it called are never popped — a class initializer or a lock's
//     release cut in half breaks the program for good, and HotSpot's agent
//     blocks its command loop until a pop completes — so a method inside
//     other calls or in native code (a sleep, a wait) is left to finish,
//     and its late return is booked as above.
//
//   - the stop state (Stops): whether the session is stopped, its latest
//     stop, and why each stopped thread stopped; a stop decided while
//     another is shown, with the whole VM held, is held back and shown in
//     turn when the user lets that one go (never reported and then let go).
//
//   - what the front end reads of a stopped thread, answered from the stop
//     (stack.go: its frames and their locals, read once per stop — over a
//     slow link read as the stop is held, beside its hold: prefetch — and
//     kept while a method runs in it), and each value's presentation
//     waited for a short while only (Presentation.Soon: a slow one is
//     pending, the front end told to ask again when it is done).
//
//   - the event pump and its lanes (Events): one goroutine reads the VM's
//     event sets and never waits on the VM; each set is booked with the
//     ledger and handed, in order per thread, to the front end's
//     EventHandler, which decides it; the sets of a thread running a method
//     for the debugger are released at once.
//
//   - the registry of the session's event requests (Requests), all cleared
//     when the session detaches.
//
//   - the memory view (Memory, docs/memory.md): instance counts and their
//     change between stops, taken in the background after a stop while the
//     view is visible and cancelled when the VM resumes; instances,
//     referrers, new instances of tracked classes; the records of an
//     allocation tracker reached through an interface (DDM's, from dap).
//
//   - the target (Target): one debugged VM with all of the above, the
//     session's lifecycle (the VM_START hold until the front end's
//     configuration is done, running a launch to its main class, the
//     stop on entry, detach) and the decision of every event set.
//
//   - breakpoints of every kind and the event requests behind them: line
//     breakpoints and logpoints by source file (resolved to each loaded
//     class's locations, moved to the next line with code, one lambda of
//     a line by column, set again in classes as they load and after a
//     redefinition; in inlined code, in the classes of any package that
//     load while a breakpoint stands in an inline body), function breakpoints, data breakpoints (field
//     watches), the stop on entry and exception rules; hit conditions
//     and hit counts. Conditions and log messages are the front end's
//     (Condition, Message: it compiles the editor's expressions); the
//     layer runs them in the hit's thread within a budget, and hands the
//     event's suspension to a method a condition left running.
//
//   - steps: line steps with step filters, through lambdas' hidden
//     proxies, a restarted frame's step, and step into a chosen call (the
//     calls a line has left, read from its bytecode: StepTargets).
//
//   - stops and resumes: a stop's hold (the VM's or the thread's), pause,
//     resume of one thread or all.
//
//   - the methods value presentation runs (Presentation): in which stopped
//     thread, within a budget per value, never twice in a stop after one
//     failed, what they return kept from the collector until the resume.
//
//   - hot code replace (Redefine): class files matched to the loaded
//     classes, the obsolete frames recorded, refusals in words, the caches
//     of redefined classes dropped and their breakpoints set again;
//
//   - coroutines, for a language that suspends (lang.Suspending): a
//     stopped thread's async stack (AsyncStack: the continuations that
//     resume after the running one, read from their fields, named by their
//     class's suspension points, the class file found on the VM's class
//     path), the coroutine list (Coroutines: kotlinx-coroutines' registry
//     read with one method run on the road, else the coroutines the
//     suspended threads run), and a step over a suspension point that
//     follows the coroutine to the thread that resumes it (suspendsteps.go).
//
// A front end sees the layer through Frontend: a stop, thread events, a
// breakpoint that became verified, output, a refresh of shown values, the
// end.
//
// A source language's rules — which classes hold a file's lines, which
// lines hold code, where a line's lambdas are — come through the seam
// (package jdwp/lang; Options.Languages, langs.All() by default).
//
// It must not touch: editor handles, DAP types, expressions or how values
// are shown (package dap), any one language's rules (its floor under
// jdwp/lang), the wire (package jdwp, through its Conn only),
// and DDM's chunks (package ddm; an allocation tracker comes in through an
// interface).
//
// The invariants it keeps are those of shared/reference/suspension.md:
// suspension has one owner and a ledger; every event set gets exactly one
// decision; invoke only on a thread whose count is exactly 1; one
// invocation per thread; abandoning an invocation is bookkeeping, not
// killing: the late reply's re-suspension is booked against the ledger as
// it stands when the method returns.
package debugger

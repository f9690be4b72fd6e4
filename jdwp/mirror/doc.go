// Package mirror is ddmbridge's mirror layer over package jdwp (JDI's idea,
// Go's shape): the model of a VM that every front end reads through — DAP
// requests, the expression engine's environment, hovers, the REPL, watches
// and logpoints.
//
// It owns the VM model ([VM]): reference types with their methods, fields,
// line and variable tables; the type hierarchy and subtype tests; classes by
// signature and source names resolved as Java resolves them; threads and
// their frames, whose ids a method run for the debugger invalidates
// (generations: every reader of a frame's values makes it live first, with
// one command when its id is stale, [VM.Live]); values of locals, fields, statics, arrays and
// strings. It runs no methods: the debugger layer's invocation road does
// (debugger.Target.Invoke), and tells the mirror when a thread ran
// ([VM.ThreadRan]); the mirror knows no suspension policy and calls nothing
// above it. What never changes while a class is loaded is cached, each
// cache behind a lock of its own ([Memo]); [VM.Redefined] drops what a class
// redefinition changes, [VM.Unloaded] what an unloaded class leaves behind.
// A class not loaded is never cached, so a class prepare invalidates
// nothing. What no thread can change while none runs — the thread list,
// thread names — is read once while the owner says the VM is held
// ([VM.Hold], [VM.Release]); what never changes for an object id — a
// string's characters, an array's length — is kept by id; a read of a
// cached fact already under way is waited for, not repeated (on a slow
// link a stop's prefetch and the front end's request share it).
//
// It owns the value presentation on top of that model ([Presenter]): which
// logical view a type gets (Collection, Map, Map.Entry, Optional, atomics,
// string builders, enums, records, Class, Thread, Throwable), the one-line
// summary of a value (ArrayList (size=3), "k" -> 1, Status.NEW, Point[x=1,
// y=2], toString() when a class overrides it), and how a collection's
// elements are gathered: the JDK's common collections and maps read from
// their fields, page by page, in the order the program iterates them
// ([Presenter.FieldElements]: ArrayList, LinkedList, ArrayDeque, Vector, the
// hash and tree maps and sets, ConcurrentHashMap, List/Set/Map.of, the
// Collections wrappers, CopyOnWriteArrayList, the empty singletons of
// Collections and of Kotlin's stdlib; their sizes too), any other
// class's by toArray() run in the stopped thread. Views are chosen by
// subtype tests against the java.util interfaces; the field layouts by
// exact JDK class names. Presentation
// reads the VM through the small [Inspector] interface, which *VM implements
// but for Invoke: the owner supplies it (the debugger layer's road, with its
// policy on when methods may run).
//
// It knows JDWP, not DAP: it calls the commands of a *jdwp.Conn and must not
// touch the wire itself (packet layouts, command numbers), DAP messages and
// their handles (variablesReference, frame ids), or policy that belongs to a
// session: when a stop may run methods (hovers, pauses, a monitor another
// thread holds), which event requests exist, when the VM is suspended or
// resumed. Expression values (jdwp/lang/java/expr) are converted by
// evaluation (jdwp/eval); this package imports no language floor, no
// debugger layer and not dap (internal/layering: the mirror sits under
// them).
package mirror

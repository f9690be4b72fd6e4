package lang

// Suspending is a language whose functions suspend and resume later,
// perhaps on another thread (Kotlin's coroutines): what the debugger layer
// needs to follow a coroutine's continuations through the VM's objects and
// to list the coroutines, as facts (names, decoders). The debugger reads
// the VM; the language never does.
type Suspending interface {
	// Continuations names the runtime's continuation classes and fields.
	Continuations() Continuations
	// SuspendPoints decodes a continuation class's suspension points from
	// its class file; nil (and no error) when the class carries none.
	SuspendPoints(classFile []byte) (SuspendPoints, error)
	// CoroutineDump decodes the description of the coroutines a registry
	// (Continuations.Registry) answers, one per coroutine in its order.
	CoroutineDump(text string) ([]CoroutineInfo, error)
	// DispatcherName names a dispatcher by its class (binary name) as its
	// toString() would, where the class says it ("Dispatchers.Default");
	// else its simple name.
	DispatcherName(class string) string
}

// Continuations are the names the runtime gives its continuations
// (binary class names; field and method names).
type Continuations struct {
	// Base is the class every compiled continuation of a suspend function
	// or lambda extends (Kotlin: kotlin.coroutines.jvm.internal.
	// BaseContinuationImpl); Resume its method that runs a continuation
	// and the ones it completes (resumeWith): a thread in it runs a
	// coroutine, its this the innermost continuation resumed.
	Base, Resume string
	// Caller is Base's field holding the continuation that resumes after
	// this one (completion): following it gives the async stack.
	Caller string
	// State is a continuation class's field saying where it suspended
	// (label), handed to SuspendPoints.At.
	State string
	// Registry is the class holding the coroutines' registry when the app
	// installed it (kotlinx-coroutines' DebugProbesImpl); Installed its
	// static field counting the installations (an AtomicInteger: its
	// "value" above 0 once installed); Instance its static field holding
	// the registry object, and Dump the registry's method, without
	// arguments, returning an Object[]: {the description text
	// (CoroutineDump), Thread[] the coroutines' last threads, the
	// coroutines' last continuations, their info objects}, each in the
	// text's order.
	Registry, Installed, Instance, Dump string
	// JobContext is the field of a coroutine (the object ending a chain of
	// continuations: kotlinx-coroutines' AbstractCoroutine) holding its
	// context. A context is one element, or Combined's pair of fields
	// CombinedLeft (the rest) and CombinedElement (one element); the
	// elements read are Name's NameField (the coroutine's name), ID's
	// IDField (its number, in debug mode) and a subclass of Dispatcher.
	JobContext                               string
	Combined, CombinedLeft, CombinedElement  string
	Name, NameField, ID, IDField, Dispatcher string
}

// SuspendPoints are one continuation class's suspension points.
type SuspendPoints interface {
	// Function is the suspend function (or lambda) the continuation
	// resumes: its class's binary name, its name and its source file's
	// name.
	Function() (class, method, file string)
	// At says where a continuation whose State field holds state
	// suspended: the source line (0 when unknown) and its spilled
	// variables at that point.
	At(state int) (line int, spilled []Spilled)
}

// Spilled is a local variable a continuation keeps in one of its fields
// while suspended.
type Spilled struct {
	Field, Name string
}

// CoroutineInfo is one coroutine as a registry describes it.
type CoroutineInfo struct {
	// ID is its number in the registry (sequence number); Name its name
	// (its CoroutineName, "" when none), CoroutineID its context's id
	// (0: none, the app is not in debug mode).
	ID          int64
	Name        string
	CoroutineID int64
	// State is "running", "suspended" or "created".
	State string
	// Dispatcher is the context's dispatcher as its toString() reads.
	Dispatcher string
}

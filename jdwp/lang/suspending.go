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
	// Continuation is the interface a suspend function takes as its last
	// parameter (kotlin.coroutines.Continuation); a suspend function's
	// state machine keeps its own continuation in the local Local
	// ($continuation), a suspend lambda's is its this; InvokeSuspend is
	// the continuation classes' method that runs the state machine when
	// resumed; a suspend function that suspends returns an object of class
	// Suspended (kotlin.coroutines.intrinsics.CoroutineSingletons).
	Continuation, Local, InvokeSuspend, Suspended string
	// Metadata is the runtime's class that reads a continuation's
	// suspension point when its class file is out of the debugger's reach
	// (an app on a device): its static MetadataFrame(continuation) returns
	// a StackTraceElement (class, method, file, line), MetadataSpilled(
	// continuation) a String[] of pairs (field, variable name). Running
	// them is the fallback of reading the class file.
	Metadata, MetadataFrame, MetadataSpilled string
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
	// A registry's info object (the Dump's fourth array) holds in
	// InfoCreation the stack its coroutine was created with, when the
	// registry records it: a chain of frames, each with its element
	// (FrameElement: a StackTraceElement) and the next one down
	// (FrameCaller), the first an artificial one whose class starts with
	// ArtificialFrame.
	InfoCreation, FrameElement, FrameCaller, ArtificialFrame string
	// JobContext is the field of a coroutine (the object ending a chain of
	// continuations: kotlinx-coroutines' AbstractCoroutine) holding its
	// context. A context is one element, or Combined's pair of fields
	// CombinedLeft (the rest) and CombinedElement (one element); the
	// elements read are Name's NameField (the coroutine's name), ID's
	// IDField (its number, in debug mode) and a subclass of Dispatcher.
	JobContext                               string
	Combined, CombinedLeft, CombinedElement  string
	Name, NameField, ID, IDField, Dispatcher string
	// Jobs are how coroutines no thread runs are found without a
	// registry: a coroutine (a subclass of Coroutine; Scope's subclasses
	// are its parts, not coroutines of their own) is a job whose field
	// JobState (the first of its names a class has) holds, while the job
	// is not complete (an Incomplete), its children and waiters: an Empty (EmptyActive false: not started), one node,
	// a NodeList (the list's head: ListNext links the nodes back to it)
	// or an object of ListHolders holding the list in ListField
	// (InactiveList: not started; Finishing: its body is over, it waits
	// for its children: not listed). A node of class ChildNode holds a
	// child job in ChildField; one of class Waiter holds in WaiterField
	// the cancellable continuation the job suspended in, whose
	// WaiterDelegate is a Dispatched continuation holding the innermost
	// continuation in DispatchedField. JobParent (first name found) holds
	// a ChildNode whose NodeJob is the parent job. A list's ListNext may
	// hold a Removed wrapper whose RemovedField is the next node.
	Coroutine, Scope, Incomplete                       string
	JobState, JobParent, ListNext                      []string
	Empty, EmptyActive, NodeList, ListField            string
	InactiveList, Finishing                            string
	ChildNode, ChildField, NodeJob                     string
	Waiter, WaiterField, WaiterDelegate                string
	Dispatched, DispatchedField, Removed, RemovedField string
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

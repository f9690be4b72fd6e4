package ext

import godap "github.com/google/go-dap"

// The Coroutines view: the coroutines request (docs/dap.md).

// CoroutinesArguments page through a stopped VM's Kotlin coroutines: Count
// coroutines from Start (Count 0: 1000), each with at most Frames frames
// (nil: 64; 0: none); with CreationStacks, each with the stack it was
// created with too (as many frames at most), where DebugProbes recorded it.
type CoroutinesArguments struct {
	Start          int  `json:"start,omitempty"`
	Count          int  `json:"count,omitempty"`
	Frames         *int `json:"frames,omitempty"`
	CreationStacks bool `json:"creationStacks,omitempty"`
}

// The sources of a coroutines answer (CoroutinesBody.Source), shown as
// they read.
const (
	CoroutinesFromDebugProbes   = "DebugProbes"
	CoroutinesFromContinuations = "continuations of stopped threads"
	CoroutinesFromJobs          = "stopped threads' coroutines and their jobs"
	CoroutinesFromInstances     = "VM's coroutine objects"
)

// The states of a coroutine (Coroutine.State).
const (
	CoroutineRunning   = "running"
	CoroutineSuspended = "suspended"
	CoroutineCreated   = "created"
)

// CoroutinesBody is one page of the VM's coroutines.
type CoroutinesBody struct {
	// Source says where the list comes from: CoroutinesFromDebugProbes
	// (every coroutine of the VM), CoroutinesFromContinuations (only
	// those found on the suspended threads' stacks) or CoroutinesFromJobs
	// (those, and the coroutines of their job trees no thread runs) or
	// CoroutinesFromInstances (those, and the trees of every coroutine
	// object of the VM: every coroutine); Note
	// says why when the probes were not used.
	Source string `json:"source"`
	Note   string `json:"note,omitempty"`
	// Total is how many coroutines there are; Start and Count the page's.
	Total int `json:"total"`
	Start int `json:"start"`
	Count int `json:"count"`
	// Coroutines is the page, by id.
	Coroutines []Coroutine `json:"coroutines"`
}

// Coroutine is one coroutine of a coroutines answer.
type Coroutine struct {
	// ID is DebugProbes' sequence number, else the coroutine's
	// CoroutineId (kotlinx.coroutines' debug mode), else the object id
	// of its job.
	ID int64 `json:"id"`
	// Name is its CoroutineName ("coroutine" without one) and "#" ID.
	Name string `json:"name"`
	// State is CoroutineRunning, CoroutineSuspended or CoroutineCreated.
	State string `json:"state"`
	// Dispatcher is the context's dispatcher as its toString() reads.
	Dispatcher string `json:"dispatcher,omitempty"`
	// ThreadID is the thread a running coroutine runs on, as the threads
	// request names it.
	ThreadID int `json:"threadId,omitempty"`
	// Frames is its stack, top first: a running coroutine's thread
	// frames down to where it resumed, then its async stack (each
	// continuation that will resume, at the line it suspended on).
	Frames []CoroutineFrame `json:"frames"`
	// CreationStack is the stack that created it, top first (the call of
	// launch, async…, then its callers), when asked (CreationStacks) and
	// DebugProbes recorded it (enableCreationStackTraces, their default).
	CreationStack []CoroutineFrame `json:"creationStack,omitempty"`
}

// CoroutineFrame is one frame of a coroutine's stack.
type CoroutineFrame struct {
	Name   string        `json:"name"`
	Line   int           `json:"line,omitempty"`
	Source *godap.Source `json:"source,omitempty"`
}

type (
	CoroutinesRequest struct {
		godap.Request
		Arguments CoroutinesArguments `json:"arguments"`
	}
	CoroutinesResponse struct {
		godap.Response
		Body CoroutinesBody `json:"body"`
	}
)

func registerCoroutines(c *godap.Codec) {
	c.RegisterRequest("coroutines", func() godap.Message { return &CoroutinesRequest{} }, func() godap.Message { return &CoroutinesResponse{} })
}

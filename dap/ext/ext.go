package ext

import (
	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/ddm/hprof"
	godap "github.com/google/go-dap"
)

// Event is a custom event with its body.
type Event[B any] struct {
	godap.Event
	Body B `json:"body"`
}

// GetBody and WithBody let the client's view convert the body
// (clientview.Bodied).
func (e *Event[B]) GetBody() any { return e.Body }

// WithBody is a copy of e with body b.
func (e *Event[B]) WithBody(b any) godap.Message {
	return &Event[any]{Event: e.Event, Body: b}
}

// Register teaches a codec the custom requests of this package.
func Register(c *godap.Codec) {
	c.RegisterRequest("ddmUpdates", func() godap.Message { return &DDMUpdatesRequest{} }, func() godap.Message { return &DDMUpdatesResponse{} })
	c.RegisterRequest("ddmGC", func() godap.Message { return &DDMGCRequest{} }, func() godap.Message { return &DDMGCResponse{} })
	c.RegisterRequest("ddmVM", func() godap.Message { return &DDMVMRequest{} }, func() godap.Message { return &DDMVMResponse{} })
	c.RegisterRequest("redefineClasses", func() godap.Message { return &RedefineClassesRequest{} }, func() godap.Message { return &RedefineClassesResponse{} })
	c.RegisterRequest("dumpHeap", func() godap.Message { return &DumpHeapRequest{} }, func() godap.Message { return &DumpHeapResponse{} })
	c.RegisterRequest("attachVM", func() godap.Message { return &AttachVMRequest{} }, func() godap.Message { return &AttachVMResponse{} })
	registerMemory(c)
	registerVirtualThreads(c)
	registerCoroutines(c)
}

// DDM: the ddmUpdates and ddmGC requests, the ddmThreads, ddmHeapInfo and
// ddmHeapMap events.

// DDMUpdatesArguments are the arguments of the ddmUpdates request. A field
// left out keeps its current setting.
type DDMUpdatesArguments struct {
	// Threads turns ddmThreads events on (THEN 1) or off (THEN 0).
	Threads *bool `json:"threads,omitempty"`
	// HeapInfo turns ddmHeapInfo events on (HPIF after every GC) or off.
	HeapInfo *bool `json:"heapInfo,omitempty"`
	// HeapMap turns ddmHeapMap events on (HPSG after every GC) or off.
	HeapMap *bool `json:"heapMap,omitempty"`
}

type DDMUpdatesRequest struct {
	godap.Request
	Arguments DDMUpdatesArguments `json:"arguments"`
}

// DDMUpdatesBody is the body of the ddmUpdates response: the settings now in
// force and the VM's identity.
type DDMUpdatesBody struct {
	Threads  bool   `json:"threads"`
	HeapInfo bool   `json:"heapInfo"`
	HeapMap  bool   `json:"heapMap"`
	VM       string `json:"vm"`
	App      string `json:"app,omitempty"`
	PID      uint32 `json:"pid,omitempty"`
}

type DDMUpdatesResponse struct {
	godap.Response
	Body DDMUpdatesBody `json:"body"`
}

type DDMGCRequest struct {
	godap.Request
	Arguments struct{} `json:"arguments,omitempty"`
}

type DDMGCResponse struct {
	godap.Response
}

// The event bodies are the one schema of package ddm (ddm/view.go,
// docs/rpc.md): the monitor's JSON-RPC carries the same objects.
type (
	// DDMThreadsBody is the body of a ddmThreads event.
	DDMThreadsBody = ddm.ThreadsJSON
	// DDMHeapInfoBody is the body of a ddmHeapInfo event.
	DDMHeapInfoBody = ddm.HeapInfoJSON
	// DDMHeapMapBody is the body of a ddmHeapMap event: one heap's map.
	DDMHeapMapBody = ddm.HeapMapJSON
)

// DDMVMBody is the body of the ddmVM response: the monitor's id of the VM
// the session debugs, "" when no monitor watches it. The editor reads the
// VM's threads and heaps through the monitor's control API under that id
// (docs/rpc.md), the one road for a monitored VM (plain JVMs included); a
// session without a monitor has only its DDM events (ddmThreads,
// ddmHeapInfo, ddmHeapMap).
type DDMVMBody struct {
	ID string `json:"id"`
}

type DDMVMRequest struct {
	godap.Request
	Arguments struct{} `json:"arguments,omitempty"`
}

type DDMVMResponse struct {
	godap.Response
	Body DDMVMBody `json:"body"`
}

// Hot code replace: the redefineClasses request and the hotCodeReplace
// event.

// RedefineClassesArguments are the arguments of redefineClasses: class
// files, a directory searched for them (recursively), or both.
type RedefineClassesArguments struct {
	ClassFiles []string `json:"classFiles,omitempty"`
	Directory  string   `json:"directory,omitempty"`
}

type RedefineClassesRequest struct {
	godap.Request
	Arguments RedefineClassesArguments `json:"arguments"`
}

// HotCodeReplaceBody is the body of the redefineClasses response and of the
// hotCodeReplace event.
type HotCodeReplaceBody struct {
	// Success is whether the VM took the new classes.
	Success bool `json:"success"`
	// Message says what happened, or what the VM refused.
	Message string `json:"message"`
	// Classes are the classes redefined (or refused), by binary name.
	Classes []string `json:"classes"`
	// Skipped are class files of classes the VM has not loaded (nothing to
	// replace: the new code is used when they load) or could not read.
	Skipped []SkippedClass `json:"skipped,omitempty"`
	// Error is the JDWP error name when the VM refused, e.g. "ADD_METHOD_NOT_IMPLEMENTED".
	Error string `json:"error,omitempty"`
}

// SkippedClass is a class file redefineClasses did not use, and why.
type SkippedClass struct {
	File   string `json:"file"`
	Class  string `json:"class,omitempty"`
	Reason string `json:"reason"`
}

// PathsIn converts the request's paths to the adapter's (clientview.PathsIn).
func (r *RedefineClassesRequest) PathsIn(in func(string) (string, error)) error {
	a := &r.Arguments
	for i, f := range a.ClassFiles {
		p, err := in(f)
		if err != nil {
			return err
		}
		a.ClassFiles[i] = p
	}
	p, err := in(a.Directory)
	a.Directory = p
	return err
}

// PathsOut is a copy with the skipped files' paths in the client's form
// (clientview.PathsOut).
func (b HotCodeReplaceBody) PathsOut(out func(string) string) any {
	if len(b.Skipped) > 0 {
		sk := make([]SkippedClass, len(b.Skipped))
		for i, s := range b.Skipped {
			s.File = out(s.File)
			sk[i] = s
		}
		b.Skipped = sk
	}
	return b
}

type RedefineClassesResponse struct {
	godap.Response
	Body HotCodeReplaceBody `json:"body"`
}

// Heap dumps: the dumpHeap request.

// DumpHeapArguments are the arguments of dumpHeap.
type DumpHeapArguments struct {
	// Path is where to write the dump; empty means a new file in the
	// temporary directory. The file is created new with mode 0600; an
	// existing file is refused unless Force, and a symlink always.
	Path string `json:"path,omitempty"`
	// Force replaces an existing regular file at Path.
	Force bool `json:"force,omitempty"`
	// Live dumps only reachable objects (HotSpot runs a full GC first).
	Live bool `json:"live,omitempty"`
	// Top is how many histogram rows the answer carries; 0 means 10.
	Top int `json:"top,omitempty"`
}

// DumpHeapBody is the body of the dumpHeap response: the one HPROF
// schema's dump (ddm/hprof/view.go) — its file, facts (reference width,
// partial, warnings) and the top of its class histogram.
type DumpHeapBody = hprof.DumpJSON

type DumpHeapRequest struct {
	godap.Request
	Arguments DumpHeapArguments `json:"arguments"`
}

type DumpHeapResponse struct {
	godap.Response
	Body DumpHeapBody `json:"body"`
}

// Child sessions: the attachVM request.

// AttachVMArguments are the arguments of attachVM.
type AttachVMArguments struct {
	// VM is the id of a VM the ddmbridge monitor watches.
	VM string `json:"vm"`
	// Name is the child session's name; the default is "VM <id>".
	Name string `json:"name,omitempty"`
}

type AttachVMRequest struct {
	godap.Request
	Arguments AttachVMArguments `json:"arguments"`
}

type AttachVMResponse struct {
	godap.Response
}

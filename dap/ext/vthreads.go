package ext

import godap "github.com/google/go-dap"

// The virtual threads view: the virtualThreads request (docs/dap.md).

// VirtualThreadsArguments page through the VM's virtual threads: Count
// threads from Start (Count 0: 1000), grouped by identical stack.
type VirtualThreadsArguments struct {
	Start int `json:"start,omitempty"`
	Count int `json:"count,omitempty"`
}

// VirtualThreadsBody is one page of the VM's virtual threads.
type VirtualThreadsBody struct {
	// Total is how many virtual threads there are; Start and Count the
	// page's.
	Total int `json:"total"`
	Start int `json:"start"`
	Count int `json:"count"`
	// Listed says the VM's agent lists its virtual threads
	// (includevirtualthreads=y); false: only the ones met at events and
	// stops are known to the debugger.
	Listed bool `json:"listed"`
	// Groups are the page's threads grouped by identical stack, the
	// largest group first.
	Groups []VirtualThreadGroup `json:"groups"`
}

// VirtualThreadGroup is threads with identical stacks.
type VirtualThreadGroup struct {
	// Count is the number of threads in the group; Threads names the
	// first ones (at most 20), by the ids the threads request uses.
	Count   int            `json:"count"`
	Threads []godap.Thread `json:"threads"`
	// Frames is the stack, top first (at most 64 frames); empty for
	// threads that run (a stack is read of suspended threads only).
	Frames []VirtualThreadFrame `json:"frames"`
}

// VirtualThreadFrame is one frame of a group's stack.
type VirtualThreadFrame struct {
	Name   string        `json:"name"`
	Line   int           `json:"line,omitempty"`
	Source *godap.Source `json:"source,omitempty"`
}

type (
	VirtualThreadsRequest struct {
		godap.Request
		Arguments VirtualThreadsArguments `json:"arguments"`
	}
	VirtualThreadsResponse struct {
		godap.Response
		Body VirtualThreadsBody `json:"body"`
	}
)

func registerVirtualThreads(c *godap.Codec) {
	c.RegisterRequest("virtualThreads", func() godap.Message { return &VirtualThreadsRequest{} }, func() godap.Message { return &VirtualThreadsResponse{} })
}

package ext

import (
	"github.com/ddmbridge/ddmbridge/jdwp/debugger"
	godap "github.com/google/go-dap"
)

// The memory view: the memoryView, instanceCounts, instances,
// trackInstances and allocations requests and the memoryCounts event
// (docs/memory.md).

// MemoryViewArguments are the arguments of memoryView.
type MemoryViewArguments struct {
	// Visible says whether the view is visible: counts are taken in the
	// background after each stop only while it is.
	Visible bool `json:"visible"`
	// Shown lists the classes the view shows, counted first at each stop.
	Shown []string `json:"shown,omitempty"`
}

// MemoryViewBody says what the VM can give the view.
type MemoryViewBody struct {
	// CanCount: the VM counts and lists instances (CanGetInstanceInfo).
	CanCount bool `json:"canCount"`
	// CanTrackAllocations: the VM has DDM's allocation tracker.
	CanTrackAllocations bool `json:"canTrackAllocations"`
	// Simulated: the VM is ddmbridge's simulated one (ddmbridge simvm, or a
	// process of a simulated device): its allocation records are made up
	// by the simulator, not recorded by a real VM.
	Simulated bool `json:"simulated,omitempty"`
	// AllocationsNote says, in words, why the VM has no allocation tracker
	// when that is known (current Android dropped DDM's).
	AllocationsNote string `json:"allocationsNote,omitempty"`
}

// InstanceCountsArguments are the arguments of instanceCounts.
type InstanceCountsArguments struct {
	// Filter selects classes by name: a glob ("com.acme.*") or a substring.
	Filter string `json:"filter,omitempty"`
}

// InstanceCountsBody is the body of the instanceCounts response and of the
// memoryCounts event.
type InstanceCountsBody struct {
	Classes []debugger.ClassCount `json:"classes"`
	// Complete is false in a memoryCounts event that has the classes the
	// view shows only (the others follow).
	Complete bool `json:"complete"`
}

// InstancesArguments are the arguments of instances.
type InstancesArguments struct {
	// ClassName is a class's name as instanceCounts gives it.
	ClassName string `json:"className"`
	// Start and Count page through the instances (Count 0: all from Start).
	Start int `json:"start,omitempty"`
	Count int `json:"count,omitempty"`
	// New lists only the instances that appeared since the previous stop
	// (the class must be tracked: trackInstances).
	New bool `json:"new,omitempty"`
}

// InstancesBody is the body of the instances response.
type InstancesBody struct {
	// Total is the number of instances listed (at most 100,000).
	Total int `json:"total"`
	// Truncated says the class has more instances than listed; for new
	// instances, that a listing compared was cut (some may be older).
	Truncated bool `json:"truncated,omitempty"`
	// VariablesReference lists the page's instances, each with its fields
	// and a child listing the objects referring to it.
	VariablesReference int `json:"variablesReference"`
}

// TrackInstancesArguments are the arguments of trackInstances.
type TrackInstancesArguments struct {
	ClassName string `json:"className"`
	Track     bool   `json:"track"`
}

// AllocationsArguments are the arguments of allocations.
type AllocationsArguments struct {
	// Enable turns the VM's allocation tracker on or off; left out, it
	// stays as it is.
	Enable *bool `json:"enable,omitempty"`
}

// AllocationsBody is the body of the allocations response.
type AllocationsBody struct {
	Enabled bool `json:"enabled"`
	// Allocations are the records since the previous stop, most recent
	// first (none while the VM runs, or at the stop the tracker was turned
	// on).
	Allocations []debugger.Allocation `json:"allocations"`
}

type (
	MemoryViewRequest struct {
		godap.Request
		Arguments MemoryViewArguments `json:"arguments"`
	}
	InstanceCountsRequest struct {
		godap.Request
		Arguments InstanceCountsArguments `json:"arguments"`
	}
	InstancesRequest struct {
		godap.Request
		Arguments InstancesArguments `json:"arguments"`
	}
	TrackInstancesRequest struct {
		godap.Request
		Arguments TrackInstancesArguments `json:"arguments"`
	}
	AllocationsRequest struct {
		godap.Request
		Arguments AllocationsArguments `json:"arguments"`
	}
	MemoryViewResponse struct {
		godap.Response
		Body MemoryViewBody `json:"body"`
	}
	InstanceCountsResponse struct {
		godap.Response
		Body InstanceCountsBody `json:"body"`
	}
	InstancesResponse struct {
		godap.Response
		Body InstancesBody `json:"body"`
	}
	TrackInstancesResponse struct{ godap.Response }
	AllocationsResponse    struct {
		godap.Response
		Body AllocationsBody `json:"body"`
	}
)

// registerMemory teaches a codec the memory view's requests.
func registerMemory(c *godap.Codec) {
	c.RegisterRequest("memoryView", func() godap.Message { return &MemoryViewRequest{} }, func() godap.Message { return &MemoryViewResponse{} })
	c.RegisterRequest("instanceCounts", func() godap.Message { return &InstanceCountsRequest{} }, func() godap.Message { return &InstanceCountsResponse{} })
	c.RegisterRequest("instances", func() godap.Message { return &InstancesRequest{} }, func() godap.Message { return &InstancesResponse{} })
	c.RegisterRequest("trackInstances", func() godap.Message { return &TrackInstancesRequest{} }, func() godap.Message { return &TrackInstancesResponse{} })
	c.RegisterRequest("allocations", func() godap.Message { return &AllocationsRequest{} }, func() godap.Message { return &AllocationsResponse{} })
}

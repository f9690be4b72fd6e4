package kotlin

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp/classfile"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	"github.com/ddmbridge/ddmbridge/jdwp/lang"
)

// Kotlin's coroutines as the debugger follows them (lang.Suspending): a
// suspend function's continuation is an object of a class kotlinc writes
// (MainKt$fetchOne$1), extending the standard library's
// BaseContinuationImpl, whose completion field is the continuation of the
// function that called it, and whose label field is the state machine's
// next state. The class carries @DebugMetadata: for each suspension point
// the source line, and which fields (L$0, I$1…) hold which local variables
// while suspended. kotlinx-coroutines' DebugProbes, when the app installed
// them, keep every coroutine in a registry and describe them as JSON.

// Continuations names the standard library's continuation machinery and
// kotlinx-coroutines' debug probes.
func (language) Continuations() lang.Continuations {
	return lang.Continuations{
		Base:   "kotlin.coroutines.jvm.internal.BaseContinuationImpl",
		Resume: "resumeWith",
		Caller: "completion",
		State:  "label",

		Continuation:  "kotlin.coroutines.Continuation",
		Local:         "$continuation",
		InvokeSuspend: "invokeSuspend",
		Suspended:     "kotlin.coroutines.intrinsics.CoroutineSingletons",

		Metadata:        "kotlin.coroutines.jvm.internal.DebugMetadataKt",
		MetadataFrame:   "getStackTraceElement",
		MetadataSpilled: "getSpilledVariableFieldMapping",
		Registry:        "kotlinx.coroutines.debug.internal.DebugProbesImpl",
		Installed:       "installations",
		Instance:        "INSTANCE",
		Dump:            "dumpCoroutinesInfoAsJsonAndReferences",
		InfoCreation:    "creationStackBottom",
		FrameElement:    "stackTraceElement",
		FrameCaller:     "callerFrame",
		ArtificialFrame: "_COROUTINE.",

		JobContext:      "context",
		Combined:        "kotlin.coroutines.CombinedContext",
		CombinedLeft:    "left",
		CombinedElement: "element",
		Name:            "kotlinx.coroutines.CoroutineName",
		NameField:       "name",
		ID:              "kotlinx.coroutines.CoroutineId",
		IDField:         "id",
		Dispatcher:      "kotlinx.coroutines.CoroutineDispatcher",

		// kotlinx-coroutines 1.9+ (atomicfu) names the volatile fields
		// with "$volatile"; earlier versions without.
		Coroutine:       "kotlinx.coroutines.AbstractCoroutine",
		Scope:           "kotlinx.coroutines.internal.ScopeCoroutine",
		Incomplete:      "kotlinx.coroutines.Incomplete",
		JobState:        []string{"_state$volatile", "_state"},
		JobParent:       []string{"_parentHandle$volatile", "_parentHandle"},
		ListNext:        []string{"_next$volatile", "_next"},
		Empty:           "kotlinx.coroutines.Empty",
		EmptyActive:     "isActive",
		NodeList:        "kotlinx.coroutines.NodeList",
		ListField:       "list",
		InactiveList:    "kotlinx.coroutines.InactiveNodeList",
		Finishing:       "kotlinx.coroutines.JobSupport$Finishing",
		ChildNode:       "kotlinx.coroutines.ChildHandleNode",
		ChildField:      "childJob",
		NodeJob:         "job",
		Waiter:          "kotlinx.coroutines.ChildContinuation",
		WaiterField:     "child",
		WaiterDelegate:  "delegate",
		Dispatched:      "kotlinx.coroutines.internal.DispatchedContinuation",
		DispatchedField: "continuation",
		Removed:         "kotlinx.coroutines.internal.Removed",
		RemovedField:    "ref",
	}
}

// dispatcherNames are the toString() of kotlinx-coroutines' dispatchers
// whose class says it.
var dispatcherNames = map[string]string{
	"kotlinx.coroutines.scheduling.DefaultScheduler":   "Dispatchers.Default",
	"kotlinx.coroutines.scheduling.DefaultIoScheduler": "Dispatchers.IO",
	"kotlinx.coroutines.Unconfined":                    "Dispatchers.Unconfined",
}

// DispatcherName names a dispatcher by its class: Dispatchers.Default, IO
// and Unconfined as their toString() reads; another by its simple name
// (BlockingEventLoop: its toString() adds the object's hash).
func (language) DispatcherName(class string) string {
	if n, ok := dispatcherNames[class]; ok {
		return n
	}
	return javalang.SimpleName(class)
}

// debugMetadata is the descriptor of kotlinc's annotation on continuation
// classes.
const debugMetadata = "Lkotlin/coroutines/jvm/internal/DebugMetadata;"

// DebugMetadata is a continuation class's @DebugMetadata
// (kotlin.coroutines.jvm.internal.DebugMetadata): the suspend function it
// belongs to (C, M, in source file F), the line of each suspension point
// (L, by point: the label field's value minus one), and its spilled
// variables: the field S[k] holds the local N[k] while suspended at point
// I[k].
type DebugMetadata struct {
	Version int
	F, M, C string
	L, I    []int
	N, S    []string
}

// SuspendPoints decodes a continuation class file's @DebugMetadata; nil
// when it has none.
func (language) SuspendPoints(classFile []byte) (lang.SuspendPoints, error) {
	dm, err := ReadDebugMetadata(classFile)
	if dm == nil || err != nil {
		return nil, err
	}
	return dm, nil
}

// ReadDebugMetadata decodes a class file's @DebugMetadata; nil when it has
// none.
func ReadDebugMetadata(classFile []byte) (*DebugMetadata, error) {
	as, err := classfile.ClassAnnotations(classFile)
	if err != nil {
		return nil, err
	}
	for _, a := range as {
		if a.Type != debugMetadata {
			continue
		}
		e := a.Elements
		dm := &DebugMetadata{Version: int(e["v"].Int), F: e["f"].Str, M: e["m"].Str, C: e["c"].Str,
			L: e["l"].Ints(), I: e["i"].Ints(), N: e["n"].Strings(), S: e["s"].Strings()}
		if len(dm.I) != len(dm.N) || len(dm.N) != len(dm.S) {
			return nil, fmt.Errorf("@DebugMetadata of %s.%s: %d labels, %d names and %d fields of spilled variables", dm.C, dm.M, len(dm.I), len(dm.N), len(dm.S))
		}
		return dm, nil
	}
	return nil, nil
}

// Function is the suspend function: its class, name and source file.
func (dm *DebugMetadata) Function() (class, method, file string) { return dm.C, dm.M, dm.F }

// At is where a continuation whose label field holds label suspended: the
// line of point label-1 (kotlinc stores the next state), and the variables
// spilled there, under the source's names (Kotlin's naming applies: an
// inlined function's $iv suffix dropped, markers hidden).
func (dm *DebugMetadata) At(label int) (line int, spilled []lang.Spilled) {
	point := label - 1
	if point < 0 {
		return 0, nil // not started: it has not suspended yet
	}
	if point < len(dm.L) {
		line = dm.L[point]
	}
	for k, at := range dm.I {
		if at != point {
			continue
		}
		if name, ok := VariableName(dm.N[k]); ok {
			spilled = append(spilled, lang.Spilled{Field: dm.S[k], Name: name})
		}
	}
	return line, spilled
}

// CoroutineDump decodes DebugProbesImpl.dumpCoroutinesInfoAsJsonAndReferences'
// JSON: [{"name", "id", "dispatcher", "sequenceNumber", "state"}…], the
// state in capitals (RUNNING, SUSPENDED, CREATED).
func (language) CoroutineDump(text string) ([]lang.CoroutineInfo, error) {
	var raw []struct {
		Name           *string `json:"name"`
		ID             *int64  `json:"id"`
		Dispatcher     *string `json:"dispatcher"`
		SequenceNumber int64   `json:"sequenceNumber"`
		State          string  `json:"state"`
	}
	if err := json.Unmarshal([]byte(text), &raw); err != nil {
		return nil, fmt.Errorf("kotlinx-coroutines' coroutine dump: %w", err)
	}
	out := make([]lang.CoroutineInfo, len(raw))
	for i, r := range raw {
		c := lang.CoroutineInfo{ID: r.SequenceNumber, State: strings.ToLower(r.State)}
		if r.Name != nil {
			c.Name = *r.Name
		}
		if r.ID != nil {
			c.CoroutineID = *r.ID
		}
		if r.Dispatcher != nil {
			c.Dispatcher = *r.Dispatcher
		}
		out[i] = c
	}
	return out, nil
}

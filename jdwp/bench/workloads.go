package bench

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync/atomic"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

// runClasses: all loaded classes with generic signatures; for each, its methods
// and its fields. Items: classes.
func runClasses(ctx context.Context, c *jdwp.Conn, _ *timer) (int, error) {
	classes, err := c.AllClassesWithGeneric(ctx)
	if err != nil {
		return 0, err
	}
	var members atomic.Int64
	err = parallel(ctx, 2*len(classes), inFlight, func(ctx context.Context, i int) error {
		ci := classes[i/2]
		if i%2 == 0 {
			ms, err := c.MethodsWithGeneric(ctx, ci.ID)
			members.Add(int64(len(ms)))
			return ignoreUnloaded(err)
		}
		fs, err := c.FieldsWithGeneric(ctx, ci.ID)
		members.Add(int64(len(fs)))
		return ignoreUnloaded(err)
	})
	if err != nil {
		return 0, err
	}
	if members.Load() == 0 {
		return 0, errors.New("no methods or fields read")
	}
	return len(classes), nil
}

// ignoreUnloaded tolerates a class unloaded between listing and asking, as JDI does.
func ignoreUnloaded(err error) error {
	if jdwp.Code(err) == jdwp.ErrInvalidClass || jdwp.Code(err) == jdwp.ErrInvalidObject {
		return nil
	}
	return err
}

// suspended runs f with the whole VM suspended, resuming it afterwards whatever happens.
func suspended(ctx context.Context, c *jdwp.Conn, f func() (int, error)) (int, error) {
	if err := c.Suspend(ctx); err != nil {
		return 0, err
	}
	n, err := f()
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if rerr := c.Resume(rctx); rerr != nil && err == nil {
		err = rerr
	}
	return n, err
}

// threadFrames is one thread's frames, read while the VM is suspended.
type threadFrames struct {
	thread jdwp.ThreadID
	frames []jdwp.Frame
}

// allFrames reads every thread's frames concurrently; with names it also reads
// each thread's name and status.
func allFrames(ctx context.Context, c *jdwp.Conn, threads []jdwp.ThreadID, names bool) ([]threadFrames, error) {
	out := make([]threadFrames, len(threads))
	err := parallel(ctx, len(threads), inFlight, func(ctx context.Context, i int) error {
		t := threads[i]
		out[i].thread = t
		if names {
			if _, err := c.ThreadName(ctx, t); err != nil {
				return ignoreDeadThread(err)
			}
			if _, _, err := c.ThreadStatus(ctx, t); err != nil {
				return ignoreDeadThread(err)
			}
		}
		fs, err := c.Frames(ctx, t, 0, -1)
		if err != nil {
			return ignoreDeadThread(err)
		}
		out[i].frames = fs
		return nil
	})
	return out, err
}

func ignoreDeadThread(err error) error {
	if jdwp.Code(err) == jdwp.ErrInvalidThread || jdwp.Code(err) == jdwp.ErrThreadNotAlive || jdwp.Code(err) == jdwp.ErrInvalidObject {
		return nil
	}
	return err
}

// runThreadDump: suspend the VM; for every thread its name, status and all
// frames; for each frame the method name and the source line; resume. Items: frames.
func runThreadDump(ctx context.Context, c *jdwp.Conn, _ *timer) (int, error) {
	return suspended(ctx, c, func() (int, error) {
		threads, err := c.AllThreads(ctx)
		if err != nil {
			return 0, err
		}
		s := &session{c: c}
		tfs, err := allFrames(ctx, c, threads, true)
		if err != nil {
			return 0, err
		}
		type frameRef struct{ t, f int }
		var refs []frameRef
		for ti, tf := range tfs {
			for fi := range tf.frames {
				refs = append(refs, frameRef{ti, fi})
			}
		}
		var named atomic.Int64
		err = parallel(ctx, len(refs), inFlight, func(ctx context.Context, i int) error {
			l := tfs[refs[i].t].frames[refs[i].f].Location
			mi, err := s.methodInfo(ctx, l)
			if err != nil {
				return err
			}
			lt, err := s.lineTable(ctx, l)
			if err != nil {
				return err
			}
			_ = lineOf(lt, l.Index)
			if mi.Name != "" {
				named.Add(1)
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
		return int(named.Load()), nil
	})
}

// runLocals: suspend; for every frame of every thread, the variables visible at
// the frame's code index and their values; resume. Frames without variable
// information are skipped. Items: values read.
func runLocals(ctx context.Context, c *jdwp.Conn, _ *timer) (int, error) {
	return suspended(ctx, c, func() (int, error) {
		reads, err := planLocals(ctx, c)
		if err != nil {
			return 0, err
		}
		return readLocals(ctx, c, reads)
	})
}

// runLocalsFloor measures the VM's own floor for the locals workload: the same
// StackFrame.GetValues commands, pipelined, with the threads, frames and
// variable tables read beforehand and not timed. Items: values read.
func runLocalsFloor(ctx context.Context, c *jdwp.Conn, t *timer) (int, error) {
	return suspended(ctx, c, func() (int, error) {
		reads, err := planLocals(ctx, c)
		if err != nil {
			return 0, err
		}
		t.reset()
		return readLocals(ctx, c, reads)
	})
}

// localsRead is one StackFrame.GetValues of the locals workload.
type localsRead struct {
	thread jdwp.ThreadID
	frame  jdwp.FrameID
	slots  []jdwp.SlotRequest
}

// planLocals reads every thread's frames and the variable tables of their
// methods, and returns the GetValues to do: one per frame with visible variables.
func planLocals(ctx context.Context, c *jdwp.Conn) ([]localsRead, error) {
	threads, err := c.AllThreads(ctx)
	if err != nil {
		return nil, err
	}
	s := &session{c: c}
	tfs, err := allFrames(ctx, c, threads, false)
	if err != nil {
		return nil, err
	}
	type frameRef struct {
		thread jdwp.ThreadID
		frame  jdwp.Frame
	}
	var refs []frameRef
	for _, tf := range tfs {
		for _, f := range tf.frames {
			refs = append(refs, frameRef{tf.thread, f})
		}
	}
	reads := make([]localsRead, len(refs))
	err = parallel(ctx, len(refs), inFlight, func(ctx context.Context, i int) error {
		ref := refs[i]
		vt, err := s.variableTable(ctx, ref.frame.Location)
		if err != nil || vt == nil {
			return err
		}
		vars := visible(vt, ref.frame.Location.Index)
		slots := make([]jdwp.SlotRequest, len(vars))
		for j, v := range vars {
			slots[j] = jdwp.SlotRequest{Slot: v.Slot, Tag: jdwp.TagForSignature(v.Signature)}
		}
		reads[i] = localsRead{ref.thread, ref.frame.ID, slots}
		return nil
	})
	return reads, err
}

// readLocals does the GetValues, many in flight, and counts the values read.
func readLocals(ctx context.Context, c *jdwp.Conn, reads []localsRead) (int, error) {
	var values atomic.Int64
	err := parallel(ctx, len(reads), inFlight, func(ctx context.Context, i int) error {
		r := reads[i]
		if len(r.slots) == 0 {
			return nil
		}
		vals, err := c.FrameValues(ctx, r.thread, r.frame, r.slots)
		values.Add(int64(len(vals)))
		return err
	})
	return int(values.Load()), err
}

// runObjects: read BenchTarget.graph (a Node[]), all its elements, each element's
// instance field values and the string value of its label field. Items: objects.
func runObjects(ctx context.Context, c *jdwp.Conn, _ *timer) (int, error) {
	s := &session{c: c}
	arr, n, err := s.graph(ctx)
	if err != nil {
		return 0, err
	}
	elems, err := arrayValuesChunked(ctx, c, arr, n)
	if err != nil {
		return 0, err
	}
	// When the array's component type is final, every non-null element has exactly
	// that type and no per-element ObjectReference.ReferenceType is needed.
	elemType, err := finalComponentType(ctx, c, arr)
	if err != nil {
		return 0, err
	}
	var objects atomic.Int64
	err = parallel(ctx, len(elems), inFlight, func(ctx context.Context, i int) error {
		obj := elems[i].Object()
		if obj == 0 {
			return nil
		}
		t := elemType
		if t == 0 {
			ci, err := c.ObjectType(ctx, obj)
			if err != nil {
				return err
			}
			t = ci.ID
		}
		fields, err := s.instanceFields(ctx, t)
		if err != nil {
			return err
		}
		ids := make([]jdwp.FieldID, len(fields))
		label := -1
		for j, f := range fields {
			ids[j] = f.ID
			if f.Name == "label" {
				label = j
			}
		}
		fv, err := c.FieldValues(ctx, obj, ids)
		if err != nil {
			return err
		}
		if label >= 0 && !fv[label].IsNull() {
			if _, err := c.StringValue(ctx, fv[label].Object()); err != nil {
				return err
			}
		}
		objects.Add(1)
		return nil
	})
	return int(objects.Load()), err
}

// graph returns the array in BenchTarget.graph and its length.
func (s *session) graph(ctx context.Context) (jdwp.ObjectID, int32, error) {
	target, err := onlyClass(ctx, s.c, "LBenchTarget;")
	if err != nil {
		return 0, 0, err
	}
	tfields, err := s.classFields(ctx, target)
	if err != nil {
		return 0, 0, err
	}
	graphField, ok := fieldNamed(tfields, "graph")
	if !ok {
		return 0, 0, errors.New("BenchTarget has no field graph")
	}
	vals, err := s.c.StaticValues(ctx, target, []jdwp.FieldID{graphField.ID})
	if err != nil {
		return 0, 0, err
	}
	arr := vals[0].Object()
	if arr == 0 {
		return 0, 0, errors.New("BenchTarget.graph is null (is the debuggee READY?)")
	}
	n, err := s.c.ArrayLength(ctx, arr)
	return arr, n, err
}

// instanceFields returns the non-static fields of a class and its superclasses.
func (s *session) instanceFields(ctx context.Context, t jdwp.ReferenceTypeID) ([]jdwp.FieldInfo, error) {
	return s.fields.get(t|1<<63, func() ([]jdwp.FieldInfo, error) {
		var out []jdwp.FieldInfo
		for cls := t; cls != 0; {
			fs, err := s.c.Fields(ctx, cls)
			if err != nil {
				return nil, err
			}
			for _, f := range fs {
				if f.ModBits&jdwp.AccStatic == 0 {
					out = append(out, f)
				}
			}
			if cls, err = s.c.Superclass(ctx, cls); err != nil {
				return nil, err
			}
		}
		return out, nil
	})
}

// arrayValuesChunked reads an array in pieces, a few in flight at once.
func arrayValuesChunked(ctx context.Context, c *jdwp.Conn, arr jdwp.ArrayID, n int32) ([]jdwp.Value, error) {
	const chunk = 2000
	parts := int((n + chunk - 1) / chunk)
	out := make([][]jdwp.Value, parts)
	err := parallel(ctx, parts, 8, func(ctx context.Context, i int) error {
		first := int32(i) * chunk
		v, err := c.ArrayValues(ctx, arr, first, min(chunk, n-first))
		out[i] = v
		return err
	})
	var all []jdwp.Value
	for _, p := range out {
		all = append(all, p...)
	}
	return all, err
}

// finalComponentType returns the component class of an object array when it is
// final, else 0.
func finalComponentType(ctx context.Context, c *jdwp.Conn, arr jdwp.ArrayID) (jdwp.ReferenceTypeID, error) {
	at, err := c.ObjectType(ctx, arr)
	if err != nil {
		return 0, err
	}
	sig, err := c.Signature(ctx, at.ID)
	if err != nil {
		return 0, err
	}
	if len(sig) < 3 || sig[0] != '[' || sig[1] != 'L' {
		return 0, nil
	}
	classes, err := c.ClassesBySignature(ctx, sig[1:])
	if err != nil || len(classes) != 1 {
		return 0, err
	}
	mods, err := c.Modifiers(ctx, classes[0].ID)
	if err != nil || mods&jdwp.AccFinal == 0 {
		return 0, err
	}
	return classes[0].ID, nil
}

func onlyClass(ctx context.Context, c *jdwp.Conn, sig string) (jdwp.ReferenceTypeID, error) {
	cs, err := c.ClassesBySignature(ctx, sig)
	if err != nil {
		return 0, err
	}
	if len(cs) != 1 {
		return 0, fmt.Errorf("%d classes loaded with signature %s — is the debuggee BenchTarget?", len(cs), sig)
	}
	return cs[0].ID, nil
}

func fieldNamed(fs []jdwp.FieldInfo, name string) (jdwp.FieldInfo, bool) {
	for _, f := range fs {
		if f.Name == name {
			return f, true
		}
	}
	return jdwp.FieldInfo{}, false
}

// StepCount is how many line steps the step workload takes.
const StepCount = 300

// runStep: breakpoint on the second line of BenchTarget.step(int), wait for the hit
// (suspending the event thread), clear it; then StepCount times: request one line
// step-over (count filter 1, suspend event thread), resume, wait for the step
// event, delete the request, read the top frame's line. Items: steps. The
// breakpoint part is not timed.
func runStep(ctx context.Context, c *jdwp.Conn, t *timer) (int, error) {
	events := c.Subscribe()
	defer events.Close()
	s := &session{c: c}
	target, err := onlyClass(ctx, c, "LBenchTarget;")
	if err != nil {
		return 0, err
	}
	methods, err := c.Methods(ctx, target)
	if err != nil {
		return 0, err
	}
	var step jdwp.MethodInfo
	for _, m := range methods {
		if m.Name == "step" && m.Signature == "(I)I" {
			step = m
		}
	}
	if step.ID == 0 {
		return 0, errors.New("BenchTarget has no method step(int)")
	}
	lt, err := c.LineTable(ctx, target, step.ID)
	if err != nil {
		return 0, fmt.Errorf("line table of BenchTarget.step (compiled with -g?): %w", err)
	}
	second, ok := secondLine(lt)
	if !ok {
		return 0, errors.New("BenchTarget.step has fewer than two lines")
	}
	bp, err := c.SetRequest(ctx, jdwp.EventBreakpoint, jdwp.SuspendEventThread,
		jdwp.LocationOnly{TypeTag: jdwp.TypeTagClass, Class: target, Method: step.ID, Index: second.CodeIndex})
	if err != nil {
		return 0, err
	}
	hit, err := waitEvent(ctx, events, jdwp.EventBreakpoint, bp)
	if err != nil {
		return 0, err
	}
	thread := hit.Thread
	if err := c.ClearRequest(ctx, jdwp.EventBreakpoint, bp); err != nil {
		return 0, err
	}
	t.reset()
	for i := 0; i < StepCount; i++ {
		req, err := c.SetRequest(ctx, jdwp.EventSingleStep, jdwp.SuspendEventThread,
			jdwp.Step{Thread: thread, Size: jdwp.StepLine, Depth: jdwp.StepOver}, jdwp.Count(1))
		if err != nil {
			return i, err
		}
		if err := c.ResumeThread(ctx, thread); err != nil {
			return i, err
		}
		ev, err := waitEvent(ctx, events, jdwp.EventSingleStep, req)
		if err != nil {
			return i, err
		}
		if err := c.ClearRequest(ctx, jdwp.EventSingleStep, req); err != nil {
			return i, err
		}
		frames, err := c.Frames(ctx, thread, 0, 1)
		if err != nil {
			return i, err
		}
		if len(frames) != 1 || frames[0].Location.Method != ev.Location.Method {
			return i, fmt.Errorf("step %d: top frame %v does not match the step event at %v", i, frames, ev.Location)
		}
		lt, err := s.lineTable(ctx, frames[0].Location)
		if err != nil {
			return i, err
		}
		_ = lineOf(lt, frames[0].Location.Index)
	}
	return StepCount, c.ResumeThread(ctx, thread)
}

// secondLine returns the line-table entry of the method's second distinct line in
// code order.
func secondLine(lt jdwp.LineTable) (jdwp.LineEntry, bool) {
	lines := append([]jdwp.LineEntry(nil), lt.Lines...)
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].CodeIndex < lines[j].CodeIndex })
	for _, l := range lines {
		if l.Line != lines[0].Line {
			return l, true
		}
	}
	return jdwp.LineEntry{}, false
}

// waitEvent waits for an event of kind from request id.
func waitEvent(ctx context.Context, sub *jdwp.Subscription, kind jdwp.EventKind, id int32) (jdwp.Event, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		select {
		case es, ok := <-sub.C:
			if !ok {
				return jdwp.Event{}, errors.New("connection closed while waiting for an event")
			}
			for _, e := range es.Events {
				if e.Kind == jdwp.EventVMDeath || e.Kind == jdwp.EventVMDisconnected {
					return jdwp.Event{}, fmt.Errorf("VM gone (%s) while waiting for %s", e.Kind, kind)
				}
				if e.Kind == kind && e.RequestID == id {
					return e, nil
				}
			}
		case <-ctx.Done():
			return jdwp.Event{}, fmt.Errorf("waiting for %s: %w", kind, ctx.Err())
		}
	}
}

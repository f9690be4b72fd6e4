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
// and its fields, all asked at once on a pipeline. Items: classes.
func runClasses(ctx context.Context, c *jdwp.Conn, _ *timer) (int, error) {
	classes, err := c.AllClassesWithGeneric(ctx)
	if err != nil {
		return 0, err
	}
	p, err := c.Pipeline(ctx)
	if err != nil {
		return 0, err
	}
	methods := make([]*jdwp.Future[[]jdwp.MethodInfo], len(classes))
	fields := make([]*jdwp.Future[[]jdwp.FieldInfo], len(classes))
	for i, ci := range classes {
		methods[i] = p.MethodsWithGeneric(ci.ID)
		fields[i] = p.FieldsWithGeneric(ci.ID)
	}
	members := 0
	for i := range classes {
		ms, err := methods[i].Wait(ctx)
		if err = ignoreUnloaded(err); err != nil {
			return 0, err
		}
		fs, err := fields[i].Wait(ctx)
		if err = ignoreUnloaded(err); err != nil {
			return 0, err
		}
		members += len(ms) + len(fs)
	}
	if members == 0 {
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

// allFrames asks for every thread's frames at once on p and hands each
// thread's to each, in thread order, as they arrive (a thread that died
// meanwhile has none); with names it also asks each thread's name and status.
func allFrames(ctx context.Context, p *jdwp.Pipeline, threads []jdwp.ThreadID, names bool, each func(threadFrames) error) error {
	type asked struct {
		name   *jdwp.Future[string]
		status *jdwp.Future[jdwp.ThreadState]
		frames *jdwp.Future[[]jdwp.Frame]
	}
	all := make([]asked, len(threads))
	for i, t := range threads {
		if names {
			all[i].name, all[i].status = p.ThreadName(t), p.ThreadStatus(t)
		}
		all[i].frames = p.Frames(t, 0, -1)
	}
	for i, t := range threads {
		tf := threadFrames{thread: t}
		alive := true
		if names {
			if _, err := all[i].name.Wait(ctx); err != nil {
				if err = ignoreDeadThread(err); err != nil {
					return err
				}
				alive = false
			}
			if _, err := all[i].status.Wait(ctx); err != nil {
				if err = ignoreDeadThread(err); err != nil {
					return err
				}
				alive = false
			}
		}
		fs, err := all[i].frames.Wait(ctx)
		if err != nil {
			if err = ignoreDeadThread(err); err != nil {
				return err
			}
			alive = false
		}
		if alive {
			tf.frames = fs
		}
		if err := each(tf); err != nil {
			return err
		}
	}
	return nil
}

func ignoreDeadThread(err error) error {
	if jdwp.Code(err) == jdwp.ErrInvalidThread || jdwp.Code(err) == jdwp.ErrThreadNotAlive || jdwp.Code(err) == jdwp.ErrInvalidObject {
		return nil
	}
	return err
}

// runThreadDump: suspend the VM; for every thread its name, status and all
// frames; for each frame the method name and the source line; resume. Items:
// frames. Every thread's questions go at once on a pipeline; the methods of
// each class and the line table of each method on the stacks are asked once,
// as soon as a thread's frames name them, so they overlap the other threads'
// replies.
func runThreadDump(ctx context.Context, c *jdwp.Conn, _ *timer) (int, error) {
	return suspended(ctx, c, func() (int, error) {
		threads, err := c.AllThreads(ctx)
		if err != nil {
			return 0, err
		}
		p, err := c.Pipeline(ctx)
		if err != nil {
			return 0, err
		}
		methods := map[jdwp.ReferenceTypeID]*jdwp.Future[[]jdwp.MethodInfo]{}
		lines := map[methodKey]*jdwp.Future[jdwp.LineTable]{}
		var locs []jdwp.Location
		err = allFrames(ctx, p, threads, true, func(tf threadFrames) error {
			for _, f := range tf.frames {
				l := f.Location
				if methods[l.Class] == nil {
					methods[l.Class] = p.Methods(l.Class)
				}
				if k := (methodKey{l.Class, l.Method}); lines[k] == nil {
					lines[k] = p.LineTable(l.Class, l.Method)
				}
				locs = append(locs, l)
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
		byClass := map[jdwp.ReferenceTypeID]map[jdwp.MethodID]jdwp.MethodInfo{}
		tables := map[methodKey]*jdwp.LineTable{}
		named := 0
		for _, l := range locs {
			ms, ok := byClass[l.Class]
			if !ok {
				list, err := methods[l.Class].Wait(ctx)
				if err != nil {
					return 0, err
				}
				ms = make(map[jdwp.MethodID]jdwp.MethodInfo, len(list))
				for _, mi := range list {
					ms[mi.ID] = mi
				}
				byClass[l.Class] = ms
			}
			mi, ok := ms[l.Method]
			if !ok {
				return 0, fmt.Errorf("method %d not among the methods of class %d", l.Method, l.Class)
			}
			k := methodKey{l.Class, l.Method}
			lt, ok := tables[k]
			if !ok {
				t, err := lines[k].Wait(ctx)
				if code := jdwp.Code(err); code == jdwp.ErrAbsentInformation || code == jdwp.ErrNativeMethod {
					err = nil // no line table: native, or compiled without -g
				} else if err == nil {
					lt = &t
				}
				if err != nil {
					return 0, err
				}
				tables[k] = lt
			}
			_ = lineOf(lt, l.Index)
			if mi.Name != "" {
				named++
			}
		}
		return named, nil
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
// methods, all on one pipeline (a method's table is asked once, as soon as a
// frame names it), and returns the GetValues to do: one per frame with
// visible variables.
func planLocals(ctx context.Context, c *jdwp.Conn) ([]localsRead, error) {
	threads, err := c.AllThreads(ctx)
	if err != nil {
		return nil, err
	}
	p, err := c.Pipeline(ctx)
	if err != nil {
		return nil, err
	}
	type frameRef struct {
		thread jdwp.ThreadID
		frame  jdwp.Frame
	}
	var refs []frameRef
	tables := map[methodKey]*jdwp.Future[jdwp.VariableTable]{}
	err = allFrames(ctx, p, threads, false, func(tf threadFrames) error {
		for _, f := range tf.frames {
			if k := (methodKey{f.Location.Class, f.Location.Method}); tables[k] == nil {
				tables[k] = p.VariableTable(k.class, k.method)
			}
			refs = append(refs, frameRef{tf.thread, f})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	vts := map[methodKey]*jdwp.VariableTable{}
	var reads []localsRead
	for _, ref := range refs {
		k := methodKey{ref.frame.Location.Class, ref.frame.Location.Method}
		vt, ok := vts[k]
		if !ok {
			t, err := tables[k].Wait(ctx)
			if code := jdwp.Code(err); code == jdwp.ErrAbsentInformation || code == jdwp.ErrNativeMethod {
				err = nil
			} else if err == nil {
				vt = &t
			}
			if err != nil {
				return nil, err
			}
			vts[k] = vt
		}
		if vt == nil {
			continue
		}
		vars := visible(vt, ref.frame.Location.Index)
		if len(vars) == 0 {
			continue
		}
		slots := make([]jdwp.SlotRequest, len(vars))
		for j, v := range vars {
			slots[j] = jdwp.SlotRequest{Slot: v.Slot, Tag: jdwp.TagForSignature(v.Signature)}
		}
		reads = append(reads, localsRead{ref.thread, ref.frame.ID, slots})
	}
	return reads, nil
}

// readLocals does the GetValues, all at once on a pipeline, and counts the
// values read.
func readLocals(ctx context.Context, c *jdwp.Conn, reads []localsRead) (int, error) {
	p, err := c.Pipeline(ctx)
	if err != nil {
		return 0, err
	}
	asked := make([]*jdwp.Future[[]jdwp.Value], len(reads))
	for i, r := range reads {
		asked[i] = p.FrameValues(r.thread, r.frame, r.slots)
	}
	values := 0
	for _, f := range asked {
		vals, err := f.Wait(ctx)
		if err != nil {
			return values, err
		}
		values += len(vals)
	}
	return values, nil
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
	if elemType != 0 {
		return readFinalElements(ctx, s, elems, elemType)
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

// readFinalElements reads the elements of an array whose component type is
// final (so every element has that type): every element's fields at once on
// a pipeline, and each label's string as soon as its element's fields
// arrive. Items: objects.
func readFinalElements(ctx context.Context, s *session, elems []jdwp.Value, t jdwp.ReferenceTypeID) (int, error) {
	fields, err := s.instanceFields(ctx, t)
	if err != nil {
		return 0, err
	}
	ids := make([]jdwp.FieldID, len(fields))
	label := -1
	for j, f := range fields {
		ids[j] = f.ID
		if f.Name == "label" {
			label = j
		}
	}
	p, err := s.c.Pipeline(ctx)
	if err != nil {
		return 0, err
	}
	values := make([]*jdwp.Future[[]jdwp.Value], 0, len(elems))
	for _, e := range elems {
		if obj := e.Object(); obj != 0 {
			values = append(values, p.FieldValues(obj, ids))
		}
	}
	// The labels are asked in bursts as the fields arrive: the VM answers the
	// field reads first anyway, and a burst leaves in one write where a
	// string asked per reply would cost a write each.
	labels := make([]*jdwp.Future[string], 0, len(values))
	var strs []jdwp.StringID
	flush := func() {
		for _, s := range strs {
			labels = append(labels, p.StringValue(s))
		}
		strs = strs[:0]
	}
	for _, f := range values {
		fv, err := f.Wait(ctx)
		if err != nil {
			return 0, err
		}
		if label >= 0 && label < len(fv) && !fv[label].IsNull() {
			if strs = append(strs, fv[label].Object()); len(strs) == labelBurst {
				flush()
			}
		}
	}
	flush()
	for _, f := range labels {
		if _, err := f.Wait(ctx); err != nil {
			return 0, err
		}
	}
	return len(values), nil
}

// labelBurst is how many label strings objects asks at once.
const labelBurst = 512

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

// arrayValuesChunked reads an array in pieces, asked at once on a pipeline.
func arrayValuesChunked(ctx context.Context, c *jdwp.Conn, arr jdwp.ArrayID, n int32) ([]jdwp.Value, error) {
	const chunk = 2000
	p, err := c.Pipeline(ctx)
	if err != nil {
		return nil, err
	}
	var parts []*jdwp.Future[[]jdwp.Value]
	for first := int32(0); first < n; first += chunk {
		parts = append(parts, p.ArrayValues(arr, first, min(chunk, n-first)))
	}
	all := make([]jdwp.Value, 0, n)
	for _, f := range parts {
		v, err := f.Wait(ctx)
		if err != nil {
			return nil, err
		}
		all = append(all, v...)
	}
	return all, nil
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

package debugger

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	"github.com/ddmbridge/ddmbridge/jdwp/lang"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
)

// The coroutine list of a stopped VM: from the app's coroutine registry
// when it installed one (kotlinx-coroutines' DebugProbes: every coroutine,
// read with one method run in the stopped thread, on the invocation road),
// otherwise from the suspended threads' stacks (the coroutines they run,
// read from fields: no code runs).

// Coroutine is one coroutine of the list.
type Coroutine struct {
	// ID is the registry's number, else the context's CoroutineId, else
	// the object id of the coroutine (its job).
	ID int64
	// Name is its name ("" when it has none); State "running",
	// "suspended" or "created"; Dispatcher its context's dispatcher.
	Name, State, Dispatcher string
	// Thread is the thread it runs on (0: none known).
	Thread jdwp.ThreadID
	// Frames is its stack, top first: a running coroutine's thread frames
	// above where it resumed (Async nil), then its async stack.
	Frames []CoroutineFrame
	// Creation is the stack it was created with, top first, when asked
	// and the registry recorded it (each frame's Owner, Method, Rel,
	// Line).
	Creation []AsyncFrame

	// job is the coroutine's object and last its innermost continuation
	// when found through the jobs (0: none); context its context when
	// read with its job's state (0: not read yet).
	job, last, context jdwp.ObjectID
}

// CoroutineFrame is a frame of a coroutine's stack: a thread's frame
// (Loc), or a continuation of its async stack (Async).
type CoroutineFrame struct {
	Loc   jdwp.Location
	Async *AsyncFrame
}

// CoroutineList is a page of a stopped VM's coroutines.
type CoroutineList struct {
	// FromRegistry says the list is the registry's (every coroutine);
	// false: the coroutines the suspended threads run, and with FromJobs
	// the coroutines of their job trees no thread runs, with
	// FromInstances those of the other trees of the VM's coroutine
	// objects too. Note says why the registry was not read.
	FromRegistry, FromJobs, FromInstances bool
	Note                                  string
	// Total counts them all; Coroutines is the page asked for.
	Total      int
	Coroutines []Coroutine
}

// ErrNoCoroutines says the program's languages have no coroutines.
var ErrNoCoroutines = errors.New("no language of the program has coroutines (Kotlin's are read through kotlin-stdlib's continuations)")

// Coroutines lists a stopped VM's coroutines, count from start, each with
// at most maxFrames frames (with creation, its creation stack too, where
// the registry has it); thread is the stopped thread the registry's method
// runs in.
func (t *Target) Coroutines(ctx context.Context, thread jdwp.ThreadID, start, count, maxFrames int, creation bool) (*CoroutineList, error) {
	s := t.suspending()
	if s == nil {
		return nil, ErrNoCoroutines
	}
	list, err := t.registryCoroutines(ctx, s, thread, start, count, maxFrames, creation)
	if err == nil {
		return list, nil
	}
	list, ferr := t.threadCoroutines(ctx, s, thread, start, count, maxFrames)
	if ferr != nil {
		return nil, ferr
	}
	list.Note = err.Error()
	return list, nil
}

// RegistryTimeout bounds the registry's dump (a thousand coroutines take
// tens of milliseconds; the first call, its code not compiled yet, a few
// hundred): past it the list is read from the threads.
var RegistryTimeout = 5 * time.Second

// errNoRegistry says the app installed no coroutine registry.
var errNoRegistry = errors.New("kotlinx-coroutines' debug probes are not installed in the app (DebugProbes.install(), or -javaagent: with the kotlinx-coroutines-core jar): only the coroutines the suspended threads run, and those of their job trees no thread runs, are listed")

// registryCoroutines reads the registry: one call of its dump method in
// thread, then the page's continuations.
func (t *Target) registryCoroutines(ctx context.Context, s lang.Suspending, thread jdwp.ThreadID, start, count, maxFrames int, creation bool) (*CoroutineList, error) {
	names := s.Continuations()
	infos, threads, lasts, objs, err := t.readRegistry(ctx, s, names, thread)
	if err != nil {
		return nil, err
	}
	list := &CoroutineList{FromRegistry: true, Total: len(infos)}
	start = min(max(start, 0), len(infos))
	end := min(start+count, len(infos))
	list.Coroutines = make([]Coroutine, end-start)
	one := func(k int) error {
		i := start + k
		c := Coroutine{ID: infos[i].ID, Name: infos[i].Name, State: infos[i].State, Dispatcher: infos[i].Dispatcher}
		if i < len(threads) {
			c.Thread = threads[i]
		}
		if c.State == "running" && c.Thread != 0 {
			if fs, ok := t.runningFrames(ctx, c.Thread, maxFrames); ok {
				c.Frames = fs
			}
		}
		if c.Frames == nil && i < len(lasts) && lasts[i] != 0 && maxFrames > 0 {
			async, _, err := t.continuationChain(ctx, s, lasts[i], maxFrames)
			if err != nil && !gone(err) {
				return err
			}
			for j := range async {
				c.Frames = append(c.Frames, CoroutineFrame{Async: &async[j]})
			}
		}
		if creation && i < len(objs) && objs[i] != 0 && maxFrames > 0 {
			c.Creation = t.creationStack(ctx, names, objs[i], maxFrames)
		}
		list.Coroutines[k] = c
		return nil
	}
	err = mirror.Parallel(end-start, one)
	return list, err
}

// gone reports an object collected meanwhile.
func gone(err error) bool { return jdwp.Code(err) == jdwp.ErrInvalidObject }

// readRegistry runs the registry's dump in thread and reads its answer:
// the coroutines' descriptions, their last threads, last continuations and
// info objects, in the same order.
func (t *Target) readRegistry(ctx context.Context, s lang.Suspending, names lang.Continuations, thread jdwp.ThreadID) (infos []lang.CoroutineInfo, threads []jdwp.ThreadID, lasts, objs []jdwp.ObjectID, err error) {
	reg, err := t.VM.ClassBySignature(ctx, javalang.Signature(names.Registry))
	if err != nil {
		return nil, nil, nil, nil, errNoRegistry
	}
	counter, ok, err := t.VM.StaticField(ctx, reg, names.Installed)
	if err != nil || !ok || counter.IsNull() {
		return nil, nil, nil, nil, errNoRegistry
	}
	if n, ok, err := t.VM.Field(ctx, counter.Object(), "value"); err != nil || !ok || n.Int() <= 0 {
		return nil, nil, nil, nil, errNoRegistry
	}
	inst, ok, err := t.VM.StaticField(ctx, reg, names.Instance)
	if err != nil || !ok || inst.IsNull() {
		return nil, nil, nil, nil, fmt.Errorf("kotlinx-coroutines' debug probes: no %s.%s", names.Registry, names.Instance)
	}
	ms, err := t.VM.MethodsNamed(ctx, reg, names.Dump)
	i := slices.IndexFunc(ms, func(m mirror.Method) bool { return m.Signature == "()[Ljava/lang/Object;" })
	if err != nil || i < 0 {
		return nil, nil, nil, nil, fmt.Errorf("kotlinx-coroutines' debug probes of this version have no %s(): the list is read from the threads", names.Dump)
	}
	if thread == 0 {
		return nil, nil, nil, nil, errors.New("no stopped thread to read kotlinx-coroutines' debug probes in")
	}
	ictx, cancel := context.WithTimeout(ctx, RegistryTimeout)
	res, err := t.Invoke(ictx, thread, inst.Object(), ms[i], nil)
	cancel()
	if err != nil && ictx.Err() != nil && ctx.Err() == nil {
		return nil, nil, nil, nil, fmt.Errorf("kotlinx-coroutines' debug probes did not answer within %s (another suspended thread may hold a lock their dump needs: a class being loaded); it goes on, and its thread is let go when it returns: %w", RegistryTimeout, err)
	}
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("kotlinx-coroutines' debug probes: %s: %w", names.Dump, err)
	}
	if res.Exception.ID != 0 {
		name, msg := t.VM.ExceptionText(ctx, res.Exception.ID)
		return nil, nil, nil, nil, fmt.Errorf("kotlinx-coroutines' debug probes: %s threw %s: %s", names.Dump, name, msg)
	}
	arr := res.Value.Object()
	if arr == 0 {
		return nil, nil, nil, nil, fmt.Errorf("kotlinx-coroutines' debug probes: %s returned null", names.Dump)
	}
	// The answer is held until read (the VM could collect it meanwhile).
	if err := t.VM.DisableCollection(ctx, arr); err == nil {
		defer t.VM.EnableCollection(context.WithoutCancel(ctx), arr)
	}
	nparts, err := t.VM.ArrayLength(ctx, arr)
	if err != nil || nparts < 3 {
		return nil, nil, nil, nil, fmt.Errorf("kotlinx-coroutines' debug probes: their answer has %d parts, want 3 or more: %v", nparts, err)
	}
	parts, err := t.VM.ArrayValues(ctx, arr, 0, min(nparts, 4))
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("kotlinx-coroutines' debug probes: their answer: %w", err)
	}
	text, err := t.VM.String(ctx, parts[0].Object())
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("kotlinx-coroutines' debug probes: their answer: %w", err)
	}
	if infos, err = s.CoroutineDump(text); err != nil {
		return nil, nil, nil, nil, err
	}
	objects := func(v jdwp.Value) ([]jdwp.ObjectID, error) {
		if v.IsNull() {
			return nil, nil
		}
		n, err := t.VM.ArrayLength(ctx, v.Object())
		if err != nil || n == 0 {
			return nil, err
		}
		vals, err := t.VM.ArrayValues(ctx, v.Object(), 0, n)
		out := make([]jdwp.ObjectID, len(vals))
		for i, v := range vals {
			out[i] = v.Object()
		}
		return out, err
	}
	ths, err := objects(parts[1])
	if err != nil {
		return nil, nil, nil, nil, err
	}
	for _, th := range ths {
		threads = append(threads, jdwp.ThreadID(th))
	}
	if lasts, err = objects(parts[2]); err != nil || len(parts) < 4 {
		return infos, threads, lasts, nil, err
	}
	objs, err = objects(parts[3])
	return infos, threads, lasts, objs, err
}

// creationStack reads the stack a coroutine was created with from its
// registry info object (fields only), top first, at most max frames; nil
// when the registry did not record it.
func (t *Target) creationStack(ctx context.Context, names lang.Continuations, info jdwp.ObjectID, max int) []AsyncFrame {
	v, ok, err := t.VM.Field(ctx, info, names.InfoCreation)
	if err != nil || !ok {
		return nil
	}
	var out []AsyncFrame
	for f, n := v.Object(), 0; f != 0 && len(out) < max && n < maxAsyncFrames; n++ {
		el, _, _ := t.VM.Field(ctx, f, names.FrameElement)
		next, _, err := t.VM.Field(ctx, f, names.FrameCaller)
		if err != nil {
			break
		}
		if !el.IsNull() {
			var af AsyncFrame
			t.readStackElement(ctx, el.Object(), &af)
			if af.Method != "" && !strings.HasPrefix(af.Owner, names.ArtificialFrame) {
				out = append(out, af)
			}
		}
		f = next.Object()
	}
	return out
}

// runningFrames are a coroutine's frames on a suspended thread that runs
// it: the thread's frames above its resume frame, then its async stack.
func (t *Target) runningFrames(ctx context.Context, thread jdwp.ThreadID, maxFrames int) ([]CoroutineFrame, bool) {
	fs, err := t.Stack(ctx, thread)
	if err != nil {
		return nil, false
	}
	a, err := t.asyncOf(ctx, thread, fs)
	if err != nil || a == nil || a.at < 0 {
		return nil, false
	}
	out := []CoroutineFrame{}
	for _, f := range fs[:a.at] {
		if len(out) < maxFrames {
			out = append(out, CoroutineFrame{Loc: f.Loc})
		}
	}
	for i := range a.frames {
		if len(out) < maxFrames {
			out = append(out, CoroutineFrame{Async: &a.frames[i]})
		}
	}
	return out, true
}

// threadCoroutines lists the coroutines the suspended threads run, from
// their stacks and continuations.
func (t *Target) threadCoroutines(ctx context.Context, s lang.Suspending, stopped jdwp.ThreadID, start, count, maxFrames int) (*CoroutineList, error) {
	ths, err := t.VM.Threads(ctx)
	if err != nil {
		return nil, err
	}
	found := make([]*Coroutine, len(ths))
	err = mirror.Parallel(len(ths), func(i int) error {
		th := ths[i]
		if _, suspended, err := t.VM.ThreadStatus(ctx, th); err != nil || !suspended {
			return nil
		}
		fs, err := t.Stack(ctx, th)
		if err != nil {
			return nil // it ended, or runs a method without a copy
		}
		a, err := t.asyncOf(ctx, th, fs)
		if err != nil || a == nil || a.at < 0 {
			return nil
		}
		c := &Coroutine{State: "running", Thread: th, ID: int64(a.job), job: a.job}
		if a.job != 0 {
			t.readContext(ctx, s, a.job, c)
		}
		c.Frames, _ = t.runningFrames(ctx, th, maxFrames)
		found[i] = c
		return nil
	})
	if err != nil {
		return nil, err
	}
	// A coroutine met on two threads (one still on its way out of the
	// segment before a suspension, the other already running the next) is
	// listed once: on the stopped thread, else the first.
	list := &CoroutineList{}
	var all []Coroutine
	at := map[int64]int{}
	for _, c := range found {
		if c == nil {
			continue
		}
		if i, dup := at[c.ID]; dup {
			if c.Thread == stopped {
				all[i] = *c
			}
			continue
		}
		at[c.ID] = len(all)
		all = append(all, *c)
	}
	// The coroutines of their job trees no thread runs.
	var running []jdwp.ObjectID
	for _, c := range all {
		if c.job != 0 {
			running = append(running, c.job)
		}
	}
	more, fromInstances := t.jobCoroutines(ctx, s, running)
	for _, c := range more {
		if _, dup := at[c.ID]; dup {
			continue
		}
		at[c.ID] = len(all)
		all = append(all, c)
		list.FromJobs = true
	}
	list.FromInstances = fromInstances
	slices.SortFunc(all, func(a, b Coroutine) int { return int(min(max(a.ID-b.ID, -1), 1)) })
	list.Total = len(all)
	start = min(max(start, 0), len(all))
	list.Coroutines = all[start:min(start+count, len(all))]
	if maxFrames > 0 {
		err = mirror.Parallel(len(list.Coroutines), func(i int) error {
			c := &list.Coroutines[i]
			if c.last == 0 || c.Frames != nil {
				return nil
			}
			async, _, err := t.continuationChain(ctx, s, c.last, maxFrames)
			if err != nil && !gone(err) {
				return err
			}
			for j := range async {
				c.Frames = append(c.Frames, CoroutineFrame{Async: &async[j]})
			}
			return nil
		})
	}
	return list, err
}

// readContext reads a coroutine's name, number and dispatcher from its
// context's fields (c.context, else its job's): each CombinedContext's
// left and element in one command.
func (t *Target) readContext(ctx context.Context, s lang.Suspending, job jdwp.ObjectID, c *Coroutine) {
	names := s.Continuations()
	el := c.context
	if el == 0 {
		v, ok, err := t.VM.Field(ctx, job, names.JobContext)
		if err != nil || !ok || v.IsNull() {
			return
		}
		el = v.Object()
	}
	combined, name, id := javalang.Signature(names.Combined), javalang.Signature(names.Name), javalang.Signature(names.ID)
	dispatcher := javalang.Signature(names.Dispatcher)
	for el != 0 {
		_, sig, err := t.VM.ObjectType(ctx, el)
		if err != nil {
			return
		}
		cur := el
		el = 0
		if sig == combined {
			vals, ok, err := t.fieldsOf(ctx, cur, []string{names.CombinedLeft}, []string{names.CombinedElement})
			if err != nil {
				return
			}
			if ok[0] {
				el = vals[0].Object()
			}
			if cur = vals[1].Object(); !ok[1] || cur == 0 || cur == job {
				continue // the job itself is an element of its context
			}
			if _, sig, err = t.VM.ObjectType(ctx, cur); err != nil {
				return
			}
		}
		switch {
		case sig == name:
			if n, ok, _ := t.VM.Field(ctx, cur, names.NameField); ok && !n.IsNull() {
				c.Name, _ = t.VM.String(ctx, n.Object())
			}
		case sig == id:
			if n, ok, _ := t.VM.Field(ctx, cur, names.IDField); ok {
				c.ID = n.Int()
			}
		default:
			if ok, _ := t.VM.Subtype(ctx, sig, dispatcher); ok {
				c.Dispatcher = s.DispatcherName(javalang.TypeName(sig))
			}
		}
	}
}

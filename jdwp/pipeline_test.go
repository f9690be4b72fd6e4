package jdwp_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

// TestPipelineMatchesCommands asks a real VM the same questions twice, one
// command at a time and all at once on a Pipeline, and wants the same
// answers, the same JDWP errors included.
func TestPipelineMatchesCommands(t *testing.T) {
	d := startTarget(t)
	ctx, c := d.ctx, d.c
	check(t, c.Suspend(ctx))
	t.Cleanup(func() { c.Resume(context.Background()) })

	p := must(c.Pipeline(ctx))(t)
	threads := must(c.AllThreads(ctx))(t)
	type asked struct {
		name   *jdwp.Future[string]
		status *jdwp.Future[jdwp.ThreadState]
		frames *jdwp.Future[[]jdwp.Frame]
	}
	all := make([]asked, len(threads))
	for i, th := range threads {
		all[i] = asked{p.ThreadName(th), p.ThreadStatus(th), p.Frames(th, 0, -1)}
	}
	classes := map[jdwp.ReferenceTypeID]bool{}
	methods := map[[2]uint64]bool{}
	frames := 0
	for i, th := range threads {
		name, err := all[i].name.Wait(ctx)
		want, werr := c.ThreadName(ctx, th)
		same(t, "ThreadName", name, err, want, werr)
		// A suspended thread's status still moves (a sleep that ends makes a
		// sleeping thread running): compare what holds still.
		st, err := all[i].status.Wait(ctx)
		wst, wsusp, werr := c.ThreadStatus(ctx, th)
		same(t, "ThreadStatus (suspended)", st.Suspended, err, wsusp, werr)
		if err == nil && (st.Status < jdwp.ThreadZombie || st.Status > jdwp.ThreadWait || wst < jdwp.ThreadZombie || wst > jdwp.ThreadWait) {
			t.Errorf("ThreadStatus: pipeline %v, command %v: not a thread status", st.Status, wst)
		}
		fs, err := all[i].frames.Wait(ctx)
		wfs, werr := c.Frames(ctx, th, 0, -1)
		same(t, "Frames", fs, err, wfs, werr)
		for _, f := range fs {
			classes[f.Location.Class] = true
			methods[[2]uint64{uint64(f.Location.Class), uint64(f.Location.Method)}] = true
			frames++
		}
	}
	if frames == 0 {
		t.Fatal("no frames on any thread of a suspended VM")
	}

	// Every class and method on the stacks, asked all at once.
	type classAsked struct {
		methods, methodsG *jdwp.Future[[]jdwp.MethodInfo]
		fields, fieldsG   *jdwp.Future[[]jdwp.FieldInfo]
	}
	ca := map[jdwp.ReferenceTypeID]classAsked{}
	for cl := range classes {
		ca[cl] = classAsked{p.Methods(cl), p.MethodsWithGeneric(cl), p.Fields(cl), p.FieldsWithGeneric(cl)}
	}
	type methodAsked struct {
		lines *jdwp.Future[jdwp.LineTable]
		vars  *jdwp.Future[jdwp.VariableTable]
	}
	ma := map[[2]uint64]methodAsked{}
	for m := range methods {
		cl, id := jdwp.ReferenceTypeID(m[0]), jdwp.MethodID(m[1])
		ma[m] = methodAsked{p.LineTable(cl, id), p.VariableTable(cl, id)}
	}
	for cl, a := range ca {
		got, err := a.methods.Wait(ctx)
		want, werr := c.Methods(ctx, cl)
		same(t, "Methods", got, err, want, werr)
		got, err = a.methodsG.Wait(ctx)
		want, werr = c.MethodsWithGeneric(ctx, cl)
		same(t, "MethodsWithGeneric", got, err, want, werr)
		gotF, err := a.fields.Wait(ctx)
		wantF, werr := c.Fields(ctx, cl)
		same(t, "Fields", gotF, err, wantF, werr)
		gotF, err = a.fieldsG.Wait(ctx)
		wantF, werr = c.FieldsWithGeneric(ctx, cl)
		same(t, "FieldsWithGeneric", gotF, err, wantF, werr)
	}
	absent := 0
	for m, a := range ma {
		cl, id := jdwp.ReferenceTypeID(m[0]), jdwp.MethodID(m[1])
		lt, err := a.lines.Wait(ctx)
		wlt, werr := c.LineTable(ctx, cl, id)
		same(t, "LineTable", lt, err, wlt, werr)
		vt, err := a.vars.Wait(ctx)
		wvt, werr := c.VariableTable(ctx, cl, id)
		same(t, "VariableTable", vt, err, wvt, werr)
		if jdwp.Code(err) != jdwp.ErrNone {
			absent++
		}
	}
	if absent == len(ma) {
		t.Errorf("no method on the stacks has a variable table (Target is compiled with -g)")
	}

	// Object and string values: Target.holder[0] is a Box whose fields are read.
	str := d.staticValue(t, "staticStr").Object()
	s, err := p.StringValue(str).Wait(ctx)
	if err != nil || s != "hello" {
		t.Errorf("StringValue(staticStr) = %q, %v; want hello", s, err)
	}
	box := d.staticValue(t, "keep1").Object()
	bt := must(c.ObjectType(ctx, box))(t)
	var ids []jdwp.FieldID
	for _, f := range must(c.Fields(ctx, bt.ID))(t) {
		if f.ModBits&jdwp.AccStatic == 0 {
			ids = append(ids, f.ID)
		}
	}
	got, err := p.FieldValues(box, ids).Wait(ctx)
	want, werr := c.FieldValues(ctx, box, ids)
	same(t, "FieldValues", got, err, want, werr)
	if len(got) != len(ids) || len(ids) == 0 {
		t.Errorf("FieldValues of a Box: %d values for %d fields", len(got), len(ids))
	}

	// Arrays, of objects and of primitives, whole and in part.
	for _, name := range []string{"objs", "ints"} {
		arr := d.staticValue(t, name).Object()
		n := must(c.ArrayLength(ctx, arr))(t)
		whole, part := p.ArrayValues(arr, 0, n), p.ArrayValues(arr, 1, n-1)
		got, err := whole.Wait(ctx)
		want, werr := c.ArrayValues(ctx, arr, 0, n)
		same(t, "ArrayValues("+name+")", got, err, want, werr)
		if len(got) != int(n) || n < 2 {
			t.Errorf("ArrayValues(%s): %d values of %d", name, len(got), n)
		}
		got, err = part.Wait(ctx)
		want, werr = c.ArrayValues(ctx, arr, 1, n-1)
		same(t, "ArrayValues("+name+", 1)", got, err, want, werr)
	}

	// Frame values of the main thread's frames that have variables.
	for i, th := range threads {
		fs, _ := all[i].frames.Wait(ctx) // waited above: returns at once
		for _, f := range fs {
			vt, err := c.VariableTable(ctx, f.Location.Class, f.Location.Method)
			if err != nil {
				continue
			}
			var slots []jdwp.SlotRequest
			for _, v := range vt.Variables {
				if v.Visible(f.Location.Index) {
					slots = append(slots, jdwp.SlotRequest{Slot: v.Slot, Tag: jdwp.TagForSignature(v.Signature)})
				}
			}
			got, err := p.FrameValues(th, f.ID, slots).Wait(ctx)
			want, werr := c.FrameValues(ctx, th, f.ID, slots)
			same(t, "FrameValues", got, err, want, werr)
		}
	}

	// A JDWP error is a *CommandError with its code, as from the Conn.
	_, err = p.StringValue(jdwp.ObjectID(box)).Wait(ctx)
	_, werr = c.StringValue(ctx, jdwp.ObjectID(box))
	if jdwp.Code(err) == jdwp.ErrNone || jdwp.Code(err) != jdwp.Code(werr) {
		t.Errorf("StringValue of a Box: pipeline error %v, command error %v; want the same JDWP error", err, werr)
	}
}

// same fails the test unless a pipelined answer equals the command's,
// errors compared by JDWP code.
func same[T any](t *testing.T, what string, got T, err error, want T, werr error) {
	t.Helper()
	if (err == nil) != (werr == nil) || jdwp.Code(err) != jdwp.Code(werr) {
		t.Errorf("%s: pipeline error %v, command error %v", what, err, werr)
		return
	}
	if err == nil && !reflect.DeepEqual(got, want) {
		t.Errorf("%s: pipeline %+v, command %+v", what, got, want)
	}
}

// TestPipelineFailures: method id 0 fails without asking the VM (whose agent
// aborts on it), a Wait whose ctx ends returns, and a closed connection fails
// new futures at once.
func TestPipelineFailures(t *testing.T) {
	d := startTarget(t)
	ctx, c := d.ctx, d.c
	p := must(c.Pipeline(ctx))(t)
	if _, err := p.LineTable(d.target, 0).Wait(ctx); jdwp.Code(err) != jdwp.ErrInvalidMethodID {
		t.Errorf("LineTable of method 0: %v, want INVALID_METHODID", err)
	}
	if _, err := p.VariableTable(d.target, 0).Wait(ctx); jdwp.Code(err) != jdwp.ErrInvalidMethodID {
		t.Errorf("VariableTable of method 0: %v, want INVALID_METHODID", err)
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	// The reply may already be there; either the value or the context's error.
	if _, err := p.Methods(d.target).Wait(done); err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("Wait with a cancelled context: %v, want the value or context.Canceled", err)
	}
	// The connection still works after an abandoned wait.
	if ms, err := p.Methods(d.target).Wait(ctx); err != nil || len(ms) == 0 {
		t.Errorf("Methods after an abandoned wait: %d methods, %v", len(ms), err)
	}
	c.Close()
	f := p.Methods(d.target)
	<-f.Done()
	if _, err := f.Wait(ctx); err == nil {
		t.Error("a future on a closed connection succeeded")
	}
}

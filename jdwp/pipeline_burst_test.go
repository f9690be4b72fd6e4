package jdwp

import "testing"

// TestPipelineBursts: a burst larger than the writer's wake-up size is
// encoded in place at the fake VM's odd id widths and answered whole, in
// order; a short burst goes out at once, with no wait to send it.
func TestPipelineBursts(t *testing.T) {
	seen := make(chan ObjectID, 4096)
	checkLeaks(t)
	vm := startFakeVM(t, fakeConfig{Handlers: map[Cmd]fakeHandler{
		CmdObjRefGetValues: answer(func(r *Reader, w *Writer) ErrorCode {
			obj := r.ObjectID()
			n := r.Count(1)
			w.Int32(int32(n))
			for range n {
				w.Value(IntValue(int32(obj) + int32(r.FieldID())))
			}
			seen <- obj
			return ErrNone
		}),
	}})
	ctx, c := testCtx(t), vm.dial(t, nil)
	p, err := c.Pipeline(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fields := []FieldID{1, 2, 3, 0x7FFFFFFF}
	const burst = 2000 // commands of ~37 bytes: several wake-ups' worth
	fs := make([]*Future[[]Value], burst)
	for i := range fs {
		fs[i] = p.FieldValues(ObjectID(i+1), fields)
	}
	for i, f := range fs {
		vals, err := f.Wait(ctx)
		if err != nil || len(vals) != len(fields) {
			t.Fatalf("FieldValues %d: %v, %v", i, vals, err)
		}
		for j, v := range vals {
			if want := IntValue(int32(i+1) + int32(fields[j])); v != want {
				t.Fatalf("FieldValues %d: value %d = %v, want %v", i, j, v, want)
			}
		}
	}
	for range burst {
		<-seen
	}
	// A short burst: nothing waits on it, yet it all goes out.
	for i := range 3 {
		p.FieldValues(ObjectID(i+1), fields)
	}
	for range 3 {
		select {
		case <-seen:
		case <-ctx.Done():
			t.Fatal("a burst nobody waits on was not sent")
		}
	}
}

package jdwp

import "testing"

// TestPipelineBursts: a burst larger than the writer's wake-up size is
// encoded in place at the fake VM's odd id widths and answered whole, in
// order; a short burst goes out with Flush or Done alone, no Wait needed.
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
	// A short burst: nothing waits on it, Flush sends it all.
	short := []*Future[[]Value]{p.FieldValues(1, fields), p.FieldValues(2, fields), p.FieldValues(3, fields)}
	p.Flush()
	for range short {
		select {
		case <-seen:
		case <-ctx.Done():
			t.Fatal("a flushed burst was not sent")
		}
	}
	// Done sends too.
	f1, f2 := p.FieldValues(4, fields), p.FieldValues(5, fields)
	<-f2.Done()
	if _, err := f1.Wait(ctx); err != nil {
		t.Errorf("FieldValues before a Done: %v", err)
	}
}

package bench

import (
	"context"
	"errors"
	"fmt"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

// The floors: for a workload bound by the VM's single-threaded agent, the
// honest yardstick is the VM itself answering the minimum command sequence
// for the same result. A floor sends each stage's commands all at once (no
// in-flight limit, no goroutine per call), reads the replies undecoded
// except where the next stage needs an id from them, and asks for nothing
// twice. The workloads' ratio to their floor is what a client can still gain.

// stage is one round of a floor: commands with no dependencies on each other.
type stage struct {
	c     *jdwp.Conn
	sizes *jdwp.IDSizes
	calls []*jdwp.Call
}

func newStage(ctx context.Context, c *jdwp.Conn) (*stage, error) {
	s, err := c.IDSizes(ctx)
	if err != nil {
		return nil, err
	}
	return &stage{c: c, sizes: &s}, nil
}

// add queues one command; enc writes its data.
func (s *stage) add(cmd jdwp.Cmd, enc func(w *jdwp.Writer)) error {
	w := jdwp.NewWriter(s.sizes)
	enc(w)
	call, err := s.c.Start(cmd, w.Bytes())
	if err != nil {
		return err
	}
	s.calls = append(s.calls, call)
	return nil
}

// wait waits for every reply of the stage and returns their data, in order.
// Replies that say a class was unloaded, a thread died or a method has no
// line table are empty, as the workloads tolerate them.
func (s *stage) wait(ctx context.Context) ([][]byte, error) {
	out := make([][]byte, len(s.calls))
	for i, call := range s.calls {
		b, err := call.Wait(ctx)
		code := jdwp.Code(err)
		if err != nil && ignoreUnloaded(err) != nil && ignoreDeadThread(err) != nil &&
			code != jdwp.ErrAbsentInformation && code != jdwp.ErrNativeMethod {
			return nil, err
		}
		out[i] = b
	}
	s.calls = s.calls[:0]
	return out, nil
}

// runClassesFloor: AllClassesWithGeneric, then every class's methods and
// fields in one stage. Items: classes.
func runClassesFloor(ctx context.Context, c *jdwp.Conn, _ *timer) (int, error) {
	classes, err := c.AllClassesWithGeneric(ctx)
	if err != nil {
		return 0, err
	}
	st, err := newStage(ctx, c)
	if err != nil {
		return 0, err
	}
	for _, ci := range classes {
		for _, cmd := range []jdwp.Cmd{jdwp.CmdRefTypeMethodsWithGeneric, jdwp.CmdRefTypeFieldsWithGeneric} {
			if err := st.add(cmd, func(w *jdwp.Writer) { w.ReferenceTypeID(ci.ID) }); err != nil {
				return 0, err
			}
		}
	}
	if _, err := st.wait(ctx); err != nil {
		return 0, err
	}
	return len(classes), nil
}

// runThreadDumpFloor: suspend; AllThreads; every thread's name, status and
// frames in one stage; the methods of every class and the line table of every
// method on those stacks, once each, in one stage; resume. Items: frames.
func runThreadDumpFloor(ctx context.Context, c *jdwp.Conn, _ *timer) (int, error) {
	return suspended(ctx, c, func() (int, error) {
		threads, err := c.AllThreads(ctx)
		if err != nil {
			return 0, err
		}
		st, err := newStage(ctx, c)
		if err != nil {
			return 0, err
		}
		for _, t := range threads {
			for _, cmd := range []jdwp.Cmd{jdwp.CmdThreadName, jdwp.CmdThreadStatus, jdwp.CmdThreadFrames} {
				if err := st.add(cmd, func(w *jdwp.Writer) {
					w.ObjectID(jdwp.ObjectID(t))
					if cmd == jdwp.CmdThreadFrames {
						w.Int32(0)
						w.Int32(-1)
					}
				}); err != nil {
					return 0, err
				}
			}
		}
		replies, err := st.wait(ctx)
		if err != nil {
			return 0, err
		}
		frames := 0
		classes := map[jdwp.ReferenceTypeID]bool{}
		type methodKey struct {
			class  jdwp.ReferenceTypeID
			method jdwp.MethodID
		}
		methods := map[methodKey]bool{}
		for i := 2; i < len(replies); i += 3 {
			if replies[i] == nil {
				continue // a thread that died
			}
			r := jdwp.NewReader(replies[i], st.sizes)
			n := r.Count(1)
			for range n {
				r.FrameID()
				l := r.Location()
				frames++
				if !classes[l.Class] {
					classes[l.Class] = true
					if err := st.add(jdwp.CmdRefTypeMethods, func(w *jdwp.Writer) { w.ReferenceTypeID(l.Class) }); err != nil {
						return 0, err
					}
				}
				if k := (methodKey{l.Class, l.Method}); !methods[k] {
					methods[k] = true
					if err := st.add(jdwp.CmdMethodLineTable, func(w *jdwp.Writer) {
						w.ReferenceTypeID(l.Class)
						w.MethodID(l.Method)
					}); err != nil {
						return 0, err
					}
				}
			}
			if r.Err() != nil {
				return 0, fmt.Errorf("ThreadReference.Frames: bad reply: %w", r.Err())
			}
		}
		if _, err := st.wait(ctx); err != nil {
			return 0, err
		}
		return frames, nil
	})
}

// runObjectsFloor: find BenchTarget.graph and read the array (as the
// workload does), then every element's fields in one stage and every label's
// string in one stage. Items: objects.
func runObjectsFloor(ctx context.Context, c *jdwp.Conn, _ *timer) (int, error) {
	s := &session{c: c}
	arr, n, err := s.graph(ctx)
	if err != nil {
		return 0, err
	}
	elems, err := c.ArrayValues(ctx, arr, 0, n)
	if err != nil {
		return 0, err
	}
	elemType, err := finalComponentType(ctx, c, arr)
	if err != nil {
		return 0, err
	}
	if elemType == 0 {
		return 0, errors.New("BenchTarget.graph's component type is not final: the floor assumes it is")
	}
	fields, err := s.instanceFields(ctx, elemType)
	if err != nil {
		return 0, err
	}
	label := -1
	for j, f := range fields {
		if f.Name == "label" {
			label = j
		}
	}
	st, err := newStage(ctx, c)
	if err != nil {
		return 0, err
	}
	objects := 0
	for _, e := range elems {
		obj := e.Object()
		if obj == 0 {
			continue
		}
		objects++
		if err := st.add(jdwp.CmdObjRefGetValues, func(w *jdwp.Writer) {
			w.ObjectID(obj)
			w.Int32(int32(len(fields)))
			for _, f := range fields {
				w.FieldID(f.ID)
			}
		}); err != nil {
			return 0, err
		}
	}
	replies, err := st.wait(ctx)
	if err != nil {
		return 0, err
	}
	if label < 0 {
		return objects, nil
	}
	for _, b := range replies {
		r := jdwp.NewReader(b, st.sizes)
		r.Count(1)
		var lv jdwp.Value
		for j := range fields {
			if v := r.Value(); j == label {
				lv = v
			}
		}
		if r.Err() != nil {
			return 0, fmt.Errorf("ObjectReference.GetValues: bad reply: %w", r.Err())
		}
		if str := lv.Object(); str != 0 {
			if err := st.add(jdwp.CmdStringRefValue, func(w *jdwp.Writer) { w.ObjectID(str) }); err != nil {
				return 0, err
			}
		}
	}
	if _, err := st.wait(ctx); err != nil {
		return 0, err
	}
	return objects, nil
}

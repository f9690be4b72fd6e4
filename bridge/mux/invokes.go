package mux

import (
	"context"
	"encoding/binary"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

// A method invocation (ClassType.InvokeMethod and NewInstance,
// InterfaceType.InvokeMethod, ObjectReference.InvokeMethod) resumes its
// thread — or every thread, without INVOKE_SINGLE_THREADED — while the
// method runs, and suspends it (them) once again when the method returns.
// A debugger that leaves meanwhile has its holds released while the
// invocation borrows them: a resume then finds nothing to resume, and the
// suspension the return puts back has no owner (issue 42.4: main stayed
// suspended until the last debugger left). So when the reply of a gone
// debugger's invocation comes after its holds were released, what the
// return suspended is resumed again — for each thread that no debugger
// still attached holds (another's hold is what the return gave back).

// isInvoke says whether cmd runs a method in the VM.
func isInvoke(cmd jdwp.Cmd) bool {
	switch cmd {
	case jdwp.CmdClassTypeInvokeMethod, jdwp.CmdClassTypeNewInstance, jdwp.CmdInterfaceTypeInvokeMethod, jdwp.CmdObjRefInvokeMethod:
		return true
	}
	return false
}

// invokeArgs reads an invocation's thread and whether it is single-threaded.
func invokeArgs(cmd jdwp.Cmd, data []byte, sizes *jdwp.IDSizes) (t jdwp.ObjectID, single, ok bool) {
	if len(data) < 4 {
		return 0, false, false
	}
	r := jdwp.NewReader(data, sizes)
	if cmd == jdwp.CmdObjRefInvokeMethod {
		r.ObjectID()
	} else {
		r.ReferenceTypeID()
	}
	t = r.ObjectID()
	if r.Err() != nil {
		return 0, false, false
	}
	opts := jdwp.InvokeOptions(binary.BigEndian.Uint32(data[len(data)-4:]))
	return t, opts&jdwp.InvokeSingleThreaded != 0, true
}

// heldByOthers says whether a debugger still attached (other than s)
// holds thread t suspended; vmWide: whether one holds the whole VM.
func (s *Session) heldByOthers(t jdwp.ObjectID) (thread, vmWide bool) {
	for _, x := range s.m.live() {
		if x == s {
			continue
		}
		x.mu.Lock()
		vm, n := x.holds.vm, x.holds.threads[t]
		x.mu.Unlock()
		vmWide = vmWide || vm > 0
		thread = thread || vm+n > 0
	}
	return thread, vmWide
}

// afterLateInvoke resumes what the return of s's invocation (its command
// fc) suspended again after s's holds were released (see above).
func (s *Session) afterLateInvoke(fc *fwdCall) {
	m := s.m
	t, single, ok := invokeArgs(fc.cmd, fc.data, m.sizes())
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), m.opts.CleanupTimeout)
	defer cancel()
	resumed := 0
	if single {
		if held, _ := s.heldByOthers(t); !held {
			if m.conn.ResumeThread(ctx, jdwp.ThreadID(t)) == nil {
				resumed++
			}
		}
	} else {
		if _, vmWide := s.heldByOthers(t); vmWide {
			return // every thread's suspension is another debugger's
		}
		threads, err := m.conn.AllThreads(ctx)
		if err != nil {
			s.log.Warn().Err(err).Msg("a gone debugger's method invocation returned; its threads could not be listed to resume them")
			return
		}
		for _, th := range threads {
			if held, _ := s.heldByOthers(jdwp.ObjectID(th)); held {
				continue
			}
			if n, err := m.conn.SuspendCount(ctx, th); err == nil && n > 0 && m.conn.ResumeThread(ctx, th) == nil {
				resumed++
			}
		}
	}
	s.log.Info().Str("cmd", fc.cmd.String()).Int("resumed", resumed).
		Msg("a method the gone debugger invoked returned: resumed what its return suspended again, which no debugger holds")
}

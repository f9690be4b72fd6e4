package dap

import (
	"context"
	"fmt"

	"github.com/ddmbridge/ddmbridge/jdwp"
	godap "github.com/google/go-dap"
)

// Suspension policy lives in package debugger (the ledger, stops, the
// event lanes); what is left here is how dap explains it.

// explain adds to a VM's THREAD_NOT_SUSPENDED error what the session knows
// of why: a method an evaluation left running.
func (s *session) explain(err error) error {
	d := s.dbg
	if d == nil || jdwp.Code(err) != jdwp.ErrThreadNotSuspended {
		return err
	}
	var busy []int
	for _, t := range d.vm.LeftRunning() {
		busy = append(busy, d.refs.threads.id(t))
	}
	if len(busy) == 0 {
		return fmt.Errorf("%w (the thread is running: resumed, or never stopped)", err)
	}
	return fmt.Errorf("%w: thread %v is still running a method of an evaluation that was cancelled or timed out; it is suspended again when the method returns", err, busy)
}

// obsoleteFrame describes a frame running a method a redefine replaced
// (JDWP gives it method id 0): it has no name, lines or variables any more;
// restartFrame re-enters the new version.
func (d *debuggee) obsoleteFrame(ctx context.Context, class jdwp.ReferenceTypeID, sig string) (godap.StackFrame, error) {
	name, _ := frameClassName(sig)
	sf := godap.StackFrame{Name: name + ".<obsolete method: restart the frame to run the new code>", Column: 1, PresentationHint: "subtle"}
	src, err := d.source(ctx, class, sig)
	if err != nil {
		return godap.StackFrame{}, err
	}
	sf.Source = src
	return sf, nil
}

package dap

import (
	"context"
	"errors"

	"github.com/ddmbridge/ddmbridge/jdwp"
	godap "github.com/google/go-dap"
)

// Suspension policy lives in package debugger (the ledger, stops, the
// event lanes); what is left here is how dap explains it.

// explain says a VM's THREAD_NOT_SUSPENDED in the user's words: a stopped
// thread's frames and values are answered from the stop, so this is a
// thread that runs.
func (s *session) explain(err error) error {
	if s.dbg == nil || jdwp.Code(err) != jdwp.ErrThreadNotSuspended {
		return err
	}
	return errors.New("the thread is running (it was resumed, or runs a method for the debugger); ask again when it stops")
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

package dap

import (
	"context"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
)

// Steps through lambdas. A lambda runs behind a hidden proxy class the VM
// generates (Orders$$Lambda/0x…, no source, no lines): a step into it goes
// on into the lambda's body. A step out of a lambda returns into the stream
// or library code that called it: a step out that lands in a class the step
// filters skip goes on out, back to the program's own code.

// stepOn says whether a completed step should go on, and how, rather than
// stop at loc.
func (d *debuggee) stepOn(ctx context.Context, st *stepState, loc jdwp.Location) (jdwp.StepDepth, bool) {
	sig, err := d.vm.Signature(ctx, loc.Class)
	if err != nil {
		return 0, false
	}
	name := javalang.TypeName(sig)
	switch {
	case st.depth == jdwp.StepInto && hiddenClass(name):
		return jdwp.StepInto, true
	case st.depth == jdwp.StepOut && (hiddenClass(name) || d.skipped(name)):
		return jdwp.StepOut, true
	}
	return 0, false
}

// hiddenClass reports whether a class is a VM-generated lambda proxy.
func hiddenClass(name string) bool {
	return strings.Contains(name, "$$Lambda")
}

// skipped reports whether the step filters pass over a class (by name).
func (d *debuggee) skipped(name string) bool {
	for _, p := range d.skipClasses() {
		switch {
		case strings.HasSuffix(p, "*") && strings.HasPrefix(name, strings.TrimSuffix(p, "*")),
			strings.HasPrefix(p, "*") && strings.HasSuffix(name, strings.TrimPrefix(p, "*")),
			p == name:
			return true
		}
	}
	return false
}

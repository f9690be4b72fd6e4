package jdwp

import (
	"sync/atomic"
	"testing"
)

// Method id 0 is HotSpot's name for an obsolete method; its agent aborts the
// VM when a Method command names it. The client answers those commands
// itself and sends nothing.
func TestObsoleteMethodIDNeverSent(t *testing.T) {
	var asked atomic.Int32
	count := func(vm *fakeVM, p *Packet) { asked.Add(1); vm.reply(p.ID, ErrNone, nil) }
	vm := startFakeVM(t, fakeConfig{Handlers: map[Cmd]fakeHandler{
		CmdMethodLineTable: count, CmdMethodVariableTable: count, CmdMethodVariableTableWithGeneric: count,
		CmdMethodBytecodes: count, CmdMethodIsObsolete: count,
	}})
	c := vm.dial(t, nil)
	ctx := testCtx(t)
	if _, err := c.LineTable(ctx, 1, 0); Code(err) != ErrInvalidMethodID {
		t.Errorf("LineTable of method 0: %v", err)
	}
	if _, err := c.VariableTable(ctx, 1, 0); Code(err) != ErrInvalidMethodID {
		t.Errorf("VariableTable of method 0: %v", err)
	}
	if _, err := c.VariableTableWithGeneric(ctx, 1, 0); Code(err) != ErrInvalidMethodID {
		t.Errorf("VariableTableWithGeneric of method 0: %v", err)
	}
	if _, err := c.Bytecodes(ctx, 1, 0); Code(err) != ErrInvalidMethodID {
		t.Errorf("Bytecodes of method 0: %v", err)
	}
	if ob, err := c.IsObsolete(ctx, 1, 0); !ob || err != nil {
		t.Errorf("IsObsolete of method 0: %v %v", ob, err)
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("%d commands about method 0 reached the VM", n)
	}
}

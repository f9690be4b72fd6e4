package jdwp

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sync"
	"testing"
)

// cmdEcho is a command no real VM has; the fake answers it with its own data.
var cmdEcho = Cmd{0x70, 1}

// TestPipelining sends 1000 commands at once from 1000 goroutines; the fake
// answers each batch of 100 in reverse arrival order, so replies come back
// far out of order and interleaved with new commands. Every caller must get
// the reply to its own command.
func TestPipelining(t *testing.T) {
	checkLeaks(t)
	const calls, batch = 1000, 100
	var held []*Packet
	vm := startFakeVM(t, fakeConfig{Handlers: map[Cmd]fakeHandler{
		cmdEcho: func(vm *fakeVM, p *Packet) {
			held = append(held, p)
			if len(held) < batch {
				return
			}
			for _, q := range slices.Backward(held) {
				vm.reply(q.ID, ErrNone, q.Data)
			}
			held = held[:0]
		},
	}})
	c := vm.dial(t, nil)
	ctx := testCtx(t)

	var wg sync.WaitGroup
	errs := make(chan error, calls)
	for i := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Vary the size so packets straddle the writer's and reader's buffers.
			data := make([]byte, 4+i%300)
			binary.BigEndian.PutUint32(data, uint32(i))
			for j := 4; j < len(data); j++ {
				data[j] = byte(i + j)
			}
			// Half the callers write their own packets (Command), half leave
			// that to the writer goroutine (Start), so both paths interleave.
			var got []byte
			var err error
			if i%2 == 0 {
				got, err = c.Command(ctx, cmdEcho.Set, cmdEcho.Cmd, data)
			} else if call, serr := c.Start(cmdEcho, data); serr != nil {
				err = serr
			} else {
				got, err = call.Wait(ctx)
			}
			switch {
			case err != nil:
				errs <- fmt.Errorf("call %d: %w", i, err)
			case !slices.Equal(got, data):
				errs <- fmt.Errorf("call %d got the reply of call %d (%d bytes, want %d)", i, binary.BigEndian.Uint32(got), len(got), len(data))
			}
		}()
	}
	wg.Wait()
	close(errs)
	n := 0
	for err := range errs {
		if n++; n <= 10 {
			t.Error(err)
		}
	}
	if n > 10 {
		t.Errorf("... and %d more", n-10)
	}
	c.mu.Lock()
	left := len(c.pending)
	c.mu.Unlock()
	if left != 0 {
		t.Errorf("%d calls still pending after every reply arrived", left)
	}
}

// TestWithQueuedIsTheCommandsOwn: a typed command's WithQueued callback
// runs once that command is queued, not the id-sizes fetch a connection
// that has none yet makes first: a command sent from the callback reaches
// the VM after it (the suspension ledger's bursts rely on it).
func TestWithQueuedIsTheCommandsOwn(t *testing.T) {
	var mu sync.Mutex
	var order []Cmd
	note := func(vm *fakeVM, p *Packet) {
		mu.Lock()
		order = append(order, Cmd{p.CmdSet, p.Cmd})
		mu.Unlock()
		vm.reply(p.ID, ErrNone, nil)
	}
	vm := startFakeVM(t, fakeConfig{Handlers: map[Cmd]fakeHandler{
		CmdVMSuspend: note,
		CmdVMResume:  note,
		CmdVMIDSizes: func(vm *fakeVM, p *Packet) {
			mu.Lock()
			order = append(order, CmdVMIDSizes)
			mu.Unlock()
			replyIDSizes(vm, p)
		},
	}})
	c := vm.dial(t, nil)
	ctx := testCtx(t)
	resumed := make(chan error, 1)
	err := c.Suspend(WithQueued(ctx, func() {
		go func() { resumed <- c.Resume(ctx) }()
	}))
	if err != nil {
		t.Fatal(err)
	}
	if err := <-resumed; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []Cmd{CmdVMIDSizes, CmdVMSuspend, CmdVMResume}; !slices.Equal(order, want) {
		t.Errorf("the VM saw %v, want %v", order, want)
	}
}

package jdwp

import (
	"bufio"
	"fmt"
)

// LargeCommandHead is how many data bytes of a large VM-initiated command a
// LargeCommandHandler sees before it decides (enough for a DDM chunk header).
const LargeCommandHead = 64

// A CommandReceiver takes a VM-initiated command packet part by part, as
// it arrives, instead of the packet whole (see HandleLargeCommands).
type CommandReceiver interface {
	// CommandPart is given the part of the packet's data at off; part is
	// valid only during the call. It runs on the connection's reader
	// goroutine: it may take its time (writing to a file; the VM's other
	// packets wait meanwhile, as TCP makes a VM wait for a slow reader),
	// but must not wait for replies on this connection. An error ends the
	// parts: the rest of the packet is read and dropped.
	CommandPart(off int, part []byte) error
	// CommandEnd is called once: err is nil when every part was given,
	// else CommandPart's error or why the connection failed.
	CommandEnd(err error)
}

// LargeCommandHandler chooses how a VM-initiated command of its set with
// StreamMin data bytes or more is read: it returns a receiver for its parts,
// or nil to have it read whole (bounded by Options.MaxPacketSize) and given
// to the set's CommandHandler. hdr is the packet's header (no Data), size
// its data length, head its first min(size, LargeCommandHead) data bytes
// (valid only during the call).
// It runs on the reader goroutine and must not block.
type LargeCommandHandler func(c *Conn, hdr *Packet, size int, head []byte) CommandReceiver

// HandleLargeCommands registers h for VM-initiated commands of set that
// carry StreamMin data bytes or more: what h takes in parts is never held
// whole, so it has no bound but JDWP's own (a signed 32-bit length). A DDM
// heap dump (HPDS) is such a command.
func (c *Conn) HandleLargeCommands(set byte, h LargeCommandHandler) {
	c.mu.Lock()
	if c.large == nil {
		c.large = map[byte]LargeCommandHandler{}
	}
	c.large[set] = h
	c.mu.Unlock()
}

// commandInParts offers a large VM-initiated command to its set's
// LargeCommandHandler; handled is false when there is none, or it wants the
// packet whole.
func (c *Conn) commandInParts(r *bufio.Reader, p *Packet, n int) (handled bool, err error) {
	c.mu.Lock()
	h := c.large[p.CmdSet]
	c.mu.Unlock()
	if h == nil {
		return false, nil
	}
	head, err := r.Peek(min(n, LargeCommandHead))
	if err != nil {
		err = truncated(p, n, err)
		c.fail(err)
		return true, err
	}
	rcv := h(c, p, n, head)
	if rcv == nil {
		return false, nil
	}
	c.tracePacket("in", p, n)
	var perr error // the receiver's: the rest is dropped
	for off := 0; off < n; {
		if r.Buffered() == 0 {
			if f := c.readIdle.Load(); f != nil {
				(*f)()
			}
			if _, err := r.Peek(1); err != nil {
				err = truncated(p, n, err)
				c.fail(err)
				if perr == nil {
					perr = c.Err()
				}
				rcv.CommandEnd(perr)
				return true, err
			}
		}
		part, _ := r.Peek(min(n-off, r.Buffered()))
		if perr == nil {
			if perr = rcv.CommandPart(off, part); perr != nil {
				c.log.Debug().Err(perr).Str("cmd", CommandName(p.CmdSet, p.Cmd)).Int("off", off).Int("len", n).
					Msg("the receiver of a large command stopped; dropping the rest")
			}
		}
		r.Discard(len(part))
		off += len(part)
	}
	if perr != nil {
		perr = fmt.Errorf("%s: %w", CommandName(p.CmdSet, p.Cmd), perr)
	}
	rcv.CommandEnd(perr)
	return true, nil
}

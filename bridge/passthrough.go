package bridge

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge/mux"
	"github.com/ddmbridge/ddmbridge/ddm"
)

// The debugger ports: a debugger arriving on a VM's port (or the
// current-VM port, or through OpenDebugger) is handed to the VM's
// multiplexer (package bridge/mux), which serves it from then on.

// acceptLoop serves debuggers on a listener: the debugger port of the VM
// at addr, or (addr "") the current-VM port.
func (m *Monitor) acceptLoop(ln net.Listener, addr string) {
	defer m.wg.Done()
	for {
		nc, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			m.log.Warn().Err(err).Str("listener", ln.Addr().String()).Msg("accept failed")
			select {
			case <-time.After(100 * time.Millisecond):
				continue
			case <-m.stop:
				return
			}
		}
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			m.serveTCPDebugger(nc, addr)
		}()
	}
}

// serveTCPDebugger checks a debugger's handshake, finds its VM (holding the
// connection until a VM is current, or back at addr) and serves it.
func (m *Monitor) serveTCPDebugger(nc net.Conn, addr string) {
	from := nc.RemoteAddr().String()
	log := m.log.With().Str("debugger", from).Logger()
	if err := mux.ReadHandshake(nc); err != nil {
		log.Warn().Err(err).Msg("debugger handshake failed; closing it")
		nc.Close()
		return
	}
	_, s, err := m.attachTo(context.Background(), addr, nc, from)
	if err != nil {
		log.Warn().Err(err).Msg("debugger refused")
		nc.Close()
		return
	}
	s.Serve()
}

// attachTo attaches a debugger to the VM at addr ("": the current VM),
// waiting for one to be there. A VM that goes away meanwhile (the monitor
// resets its agent after the previous debugger, or it restarts) is looked
// up again.
func (m *Monitor) attachTo(ctx context.Context, addr string, nc net.Conn, from string) (*VM, *mux.Session, error) {
	var gone *VM
	for tries := 0; ; tries++ {
		v, err := m.waitDebuggee(ctx, addr, gone)
		if err != nil {
			return nil, nil, err
		}
		s, err := v.mux.Attach(nc, from)
		if errors.Is(err, mux.ErrVMGone) && tries < 3 {
			gone = v
			continue
		}
		return v, s, err
	}
}

// OpenDebugger connects an in-process debugger (the DAP server) to a VM: the
// returned conn is the client end of a pipe served exactly like a TCP
// debugger on the VM's port. The caller writes the JDWP handshake on it and
// reads it back, then speaks JDWP. target is a VM id, "current" (waiting up
// to the hold timeout, or until ctx ends, for a VM to become current) or the
// address of a monitored VM. Closing the conn detaches the debugger; the
// monitor then cleans up after it like after any debugger.
func (m *Monitor) OpenDebugger(ctx context.Context, target string) (net.Conn, error) {
	addr := ""
	if target != "current" {
		v, err := m.VM(target)
		if errors.Is(err, ErrNoVM) && isHostPort(target) {
			v, err = m.adoptAddress(ctx, target)
		}
		if err != nil {
			return nil, err
		}
		if v.ddmOnly { // a debug session would find no code: say so rather than attach
			return nil, fmt.Errorf("VM %s (%s) cannot be debugged: %s", v.id, v.addr, ddm.DDMOnlyNote)
		}
		addr = v.addr
	}
	client, server := net.Pipe()
	v, s, err := m.attachTo(ctx, addr, server, "in-process")
	if err != nil {
		client.Close()
		server.Close()
		return nil, err
	}
	m.launcherSession(v, s)
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		s.ServeHandshake()
	}()
	return client, nil
}

func isHostPort(target string) bool {
	_, p, err := net.SplitHostPort(target)
	return err == nil && p != ""
}

// adoptAddress monitors the VM at a JDWP address outside the scan ranges
// (an attach to host:port names it): the monitor dials it, as a probe
// would, and owns the connection from then on, so DDM and the pass-through
// port work for it like for any VM found by scanning. A refused dial is
// returned as it is (the caller tells nothing listening from a VM that
// has a debugger); a peer that does not answer the handshake is not JDWP.
func (m *Monitor) adoptAddress(ctx context.Context, addr string) (*VM, error) {
	// Monitored already, or a scan probe is on it: wait for its outcome (a
	// VM, or the probe ending without one, when the address is ours to try).
	for !m.claimProbe(addr) {
		if v, err := m.VM(addr); err == nil {
			return v, nil
		}
		m.mu.Lock()
		own, closed, probe := m.own[addr], m.closed, m.probing[addr]
		m.mu.Unlock()
		switch {
		case own:
			return nil, fmt.Errorf("%s is one of the monitor's own ports, not a VM: attach to the VM's address or id", addr)
		case closed:
			return nil, errors.New("monitor closed")
		case probe == nil:
			continue // the probe just ended: a VM, or the address is free to try
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%s is being probed by the monitor's scan and the probe did not finish in time: %w", addr, ctx.Err())
		case <-m.stop:
			return nil, errors.New("monitor closed")
		case <-probe:
		}
	}
	defer m.endProbe(addr)
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	if err := m.checkVMOwner(nc); err != nil {
		nc.Close()
		return nil, err
	}
	if _, err := handshakeVM(ctx, nc, m.opts.ProbeTimeout); err != nil {
		nc.Close()
		return nil, fmt.Errorf("%s is not a JDWP agent (%v): is it the VM's -agentlib:jdwp address?", addr, err)
	}
	// Like a VM found by scanning, it can be dialled again, so its agent is
	// reset when a debugger leaves.
	from := vmOrigin{dial: func(ctx context.Context) (net.Conn, error) { return m.dialVM(ctx, addr) }}
	v, err := m.adoptFrom(context.WithoutCancel(ctx), nc, addr, from)
	if err != nil {
		return nil, fmt.Errorf("VM at %s found but could not be monitored: %w", addr, err)
	}
	return v, nil
}

// vmHost is what a VM's multiplexer asks of the monitor (mux.Host).
type vmHost struct{ v *VM }

func (h vmHost) Changed() { h.v.m.notify(EventChanged, h.v) }

func (h vmHost) Attached() {
	if h.v.dc != nil {
		h.v.dc.Data().SetDebugger(ddm.DebuggerAttached)
	}
	h.v.m.notify(EventChanged, h.v)
}

func (h vmHost) Detached() {
	if h.v.dc != nil {
		h.v.dc.Data().SetDebugger(ddm.DebuggerDefault)
	}
	h.v.m.notify(EventChanged, h.v)
}

// CleanedUp sends DBGD to a draft-protocol VM: the 2007 draft's "the
// debugger is gone".
func (h vmHost) CleanedUp() {
	v := h.v
	if !v.draft {
		return
	}
	v.dc.Send(&ddm.Empty{Type: ddm.DBGD}, func(r ddm.Reply) {
		if r.Err == nil {
			v.dbgdAcks.Add(1)
		}
	})
}

func (h vmHost) ResetAgent()     { h.v.m.resetAgent(h.v) }
func (h vmHost) Drop(why string) { h.v.m.remove(h.v, why) }
func (h vmHost) Go(f func())     { h.v.m.goCleanup(f) }

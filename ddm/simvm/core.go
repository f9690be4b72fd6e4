package simvm

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

// objectIDSize is the size of every id the simulator hands out.
const objectIDSize = 8

func jdwpString(b []byte, s string) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

// versionReply is the VirtualMachine.Version reply as the profile's agent
// answers: ART's (the OpenJDK agent over ART, java.vm.name "Dalvik",
// version 2.1.0) or Dalvik's own; the description says it is simulated. It
// is how a client tells the VM is Android's and may be sent DDM, so it is
// given in front of a JVM too.
func (vm *VM) versionReply() []byte {
	var out []byte
	if vm.opt.Profile.art() {
		out = jdwpString(out, fmt.Sprintf("Java Debug Wire Protocol (Reference Implementation) version 1.8\nJVM Debug Interface version 1.2\nJVM version 2.1.0 (Dalvik, %s, %s profile)%s", SimulatedMark, vm.opt.Profile, vm.ddmOnlySuffix()))
		out = binary.BigEndian.AppendUint32(out, 1)
		out = binary.BigEndian.AppendUint32(out, 8)
		out = jdwpString(out, "2.1.0")
		return jdwpString(out, "Dalvik")
	}
	out = jdwpString(out, fmt.Sprintf("Android DalvikVM 1.6.0 (%s, %s profile)%s", SimulatedMark, vm.opt.Profile, vm.ddmOnlySuffix()))
	out = binary.BigEndian.AppendUint32(out, 1)
	out = binary.BigEndian.AppendUint32(out, 5)
	out = jdwpString(out, "1.6.0")
	return jdwpString(out, "DalvikVM")
}

// ddmOnlySuffix ends the Version description of a VM without a JVM: it
// says, to a monitor and in a debugger's `version`, that it cannot be
// debugged (DDMOnlyNote).
func (vm *VM) ddmOnlySuffix() string {
	if vm.opt.JVM != "" {
		return ""
	}
	return "\n" + DDMOnlyNote
}

// handleCore answers a non-DDM command; false ends the session.
func (s *session) handleCore(p *jdwp.Packet) bool {
	vm := s.vm
	var out []byte
	code := jdwp.ErrNone
	keep := true
	cmd := jdwp.Cmd{Set: p.CmdSet, Cmd: p.Cmd}
	switch cmd {
	case jdwp.CmdVMVersion:
		out = vm.versionReply()
	case jdwp.CmdVMIDSizes:
		for range 5 {
			out = binary.BigEndian.AppendUint32(out, objectIDSize)
		}
	case jdwp.CmdVMAllThreads:
		vm.mu.Lock()
		ts := sortedThreads(vm.threads)
		out = binary.BigEndian.AppendUint32(out, uint32(len(ts)))
		for _, t := range ts {
			out = binary.BigEndian.AppendUint64(out, t.jdwpID)
		}
		vm.mu.Unlock()
	case jdwp.CmdVMCapabilities:
		out = make([]byte, 7)
	case jdwp.CmdVMCapabilitiesNew:
		out = make([]byte, 32)
	case jdwp.CmdVMSuspend, jdwp.CmdVMResume:
		vm.mu.Lock()
		for _, t := range vm.threads {
			t.suspended = cmd == jdwp.CmdVMSuspend
		}
		vm.mu.Unlock()
	case jdwp.CmdVMDispose, jdwp.CmdVMExit:
		keep = false
	case jdwp.CmdThreadName, jdwp.CmdThreadSuspend, jdwp.CmdThreadResume, jdwp.CmdThreadStatus:
		code = jdwp.ErrInvalidThread
		if len(p.Data) < objectIDSize {
			break
		}
		id := binary.BigEndian.Uint64(p.Data)
		vm.mu.Lock()
		for _, t := range vm.threads {
			if t.jdwpID != id {
				continue
			}
			code = jdwp.ErrNone
			switch cmd {
			case jdwp.CmdThreadName:
				out = jdwpString(nil, t.name)
			case jdwp.CmdThreadSuspend, jdwp.CmdThreadResume:
				t.suspended = cmd == jdwp.CmdThreadSuspend
			case jdwp.CmdThreadStatus:
				out = binary.BigEndian.AppendUint32(nil, uint32(t.status.JDWP()))
				suspended := uint32(0)
				if t.suspended {
					suspended = uint32(jdwp.SuspendStatusSuspended)
				}
				out = binary.BigEndian.AppendUint32(out, suspended)
			}
		}
		vm.mu.Unlock()
	default:
		var known bool
		if out, code, known = s.answerBare(cmd, p.Data); !known {
			s.log.Debug().Uint8("set", p.CmdSet).Uint8("cmd", p.Cmd).Msg("JDWP command of a debugger not implemented: this VM runs no code")
		}
	}
	s.reply(p.ID, code, out)
	return keep
}

// Passthrough to a real JVM.

// queryIDBase is where the simulator's own command ids to the JVM start, far
// from debuggers' small ids.
const queryIDBase = 0x7E000000

// queryTimeout bounds one batch of the simulator's own queries (a var for
// tests).
var queryTimeout = 2 * time.Second

// maxAbandoned is how many unanswered queries may be outstanding before new
// ones fail at once: the JVM is not keeping up.
const maxAbandoned = 1024

var errJVMGone = errors.New("JVM connection closed")

// connectJVM dials the JVM, handshakes, starts forwarding what it sends, and
// reads its threads so the first THST already reports them.
func (s *session) connectJVM() error {
	addr := s.vm.opt.JVM
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return fmt.Errorf("dial JVM %s: %w — is it started with -agentlib:jdwp=transport=dt_socket,server=y,address=%s?", addr, err, addr)
	}
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(nc, jdwp.HandshakeString); err != nil {
		nc.Close()
		return fmt.Errorf("JVM %s handshake: %w", addr, err)
	}
	buf := make([]byte, len(jdwp.HandshakeString))
	if _, err := io.ReadFull(nc, buf); err != nil || string(buf) != jdwp.HandshakeString {
		nc.Close()
		return fmt.Errorf("JVM %s handshake: got %q: %v", addr, buf, err)
	}
	nc.SetDeadline(time.Time{})
	s.jvm = nc
	s.jvmDone = make(chan struct{})
	s.qid = queryIDBase
	s.pending = map[uint32]chan *jdwp.Packet{}
	// The pump runs from here on, so whatever the JVM sends is forwarded in
	// order while the queries below wait for their replies.
	s.bg.Add(1)
	go s.pumpFromJVM()
	sizes, err := s.query(jdwp.CmdVMIDSizes, nil)
	if err != nil || len(sizes) < 20 {
		return fmt.Errorf("JVM %s IDSizes: %v", addr, err)
	}
	if s.jvmOID = int(binary.BigEndian.Uint32(sizes[8:])); s.jvmOID < 1 || s.jvmOID > 8 {
		return fmt.Errorf("JVM %s IDSizes: object ids of %d bytes", addr, s.jvmOID)
	}
	n, err := s.refreshThreads(true)
	if err != nil {
		return fmt.Errorf("JVM %s threads: %w", addr, err)
	}
	s.log.Info().Str("jvm", addr).Int("threads", n).Msg("passing JDWP through to the JVM")
	return nil
}

// closeJVM ends the JVM connection and waits for the goroutines that use it.
func (s *session) closeJVM() {
	if s.jvm != nil {
		s.vm.mu.Lock()
		s.jvmClosed = true
		s.vm.mu.Unlock()
		s.jvm.Close()
	}
	s.bg.Wait()
}

func (s *session) toJVM(p *jdwp.Packet) error {
	s.jvmWmu.Lock()
	defer s.jvmWmu.Unlock()
	return jdwp.WritePacket(s.jvm, p)
}

// pumpFromJVM forwards every JVM packet to the session unchanged, except the
// replies to the simulator's own queries.
func (s *session) pumpFromJVM() {
	defer s.bg.Done()
	defer close(s.jvmDone)
	r := bufio.NewReader(s.jvm)
	for {
		p, err := jdwp.ReadPacket(r, 0)
		if err != nil {
			s.log.Debug().Err(err).Msg("JVM connection ended; closing the session")
			s.nc.Close()
			return
		}
		if p.IsReply() {
			s.qmu.Lock()
			ch, ours := s.pending[p.ID]
			delete(s.pending, p.ID)
			version := s.versions[p.ID]
			delete(s.versions, p.ID)
			s.qmu.Unlock()
			if version {
				// The JVM answered a debugger's Version: the VM names
				// itself as Android's do, in the reply's place in order.
				p = &jdwp.Packet{ID: p.ID, Flags: p.Flags, Data: s.vm.versionReply()}
			}
			if ours {
				if ch != nil {
					ch <- p // buffered: never blocks
				}
				continue
			}
		}
		if err := s.send(p); err != nil {
			s.jvm.Close()
			return
		}
	}
}

// query sends one command to the JVM and returns its reply's data.
func (s *session) query(cmd jdwp.Cmd, data []byte) ([]byte, error) {
	rs, err := s.queries([]jdwp.Packet{{CmdSet: cmd.Set, Cmd: cmd.Cmd, Data: data}})
	if err != nil {
		return nil, err
	}
	if rs[0].Error != jdwp.ErrNone {
		return nil, rs[0].Error
	}
	return rs[0].Data, nil
}

// queries sends commands to the JVM under the simulator's own ids, all before
// waiting, and returns their replies in order; a reply may carry a JDWP
// error. It fails after queryTimeout, or at once when the connection ends.
func (s *session) queries(cmds []jdwp.Packet) ([]*jdwp.Packet, error) {
	chs := make([]chan *jdwp.Packet, len(cmds))
	s.qmu.Lock()
	if len(s.pending) > maxAbandoned {
		s.qmu.Unlock()
		return nil, fmt.Errorf("JVM has %d queries unanswered", len(s.pending))
	}
	for i := range cmds {
		if s.qid++; s.qid < queryIDBase { // wrapped around
			s.qid = queryIDBase
		}
		cmds[i].ID, cmds[i].Flags = s.qid, 0
		chs[i] = make(chan *jdwp.Packet, 1)
		s.pending[s.qid] = chs[i]
	}
	s.qmu.Unlock()
	answered, written := 0, 0
	defer func() {
		// Replies still to come are dropped by the pump, not forwarded.
		s.qmu.Lock()
		for i, c := range cmds[answered:] {
			if _, ok := s.pending[c.ID]; ok && answered+i < written {
				s.pending[c.ID] = nil
			} else {
				delete(s.pending, c.ID)
			}
		}
		s.qmu.Unlock()
	}()
	for ; written < len(cmds); written++ {
		if err := s.toJVM(&cmds[written]); err != nil {
			return nil, err
		}
	}
	timer := time.NewTimer(queryTimeout)
	defer timer.Stop()
	out := make([]*jdwp.Packet, len(cmds))
	for i, ch := range chs {
		select {
		case out[i] = <-ch:
			answered++
		case <-s.jvmDone:
			return nil, errJVMGone
		case <-timer.C:
			return nil, fmt.Errorf("JVM did not answer command %d/%d within %v", cmds[i].CmdSet, cmds[i].Cmd, queryTimeout)
		}
	}
	return out, nil
}

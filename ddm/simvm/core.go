package simvm

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/jdwp"
)

// Core JDWP commands the simulator answers when no real JVM is behind it.
const (
	setVM     = 1
	setThread = 11

	cmdVersion         = 1
	cmdAllThreads      = 4
	cmdDispose         = 6
	cmdIDSizes         = 7
	cmdSuspend         = 8
	cmdResume          = 9
	cmdExit            = 10
	cmdCapabilities    = 12
	cmdCapabilitiesNew = 17
	cmdThreadName      = 1
	cmdThreadSuspend   = 2
	cmdThreadResume    = 3
	cmdThreadStatus    = 4

	objectIDSize = 8
)

func jdwpString(b []byte, s string) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

// handleCore answers a non-DDM command; false ends the session.
func (s *session) handleCore(p *jdwp.Packet) bool {
	vm := s.vm
	var out []byte
	code := jdwp.ErrNone
	keep := true
	switch [2]byte{p.CmdSet, p.Cmd} {
	case [2]byte{setVM, cmdVersion}:
		out = jdwpString(out, fmt.Sprintf("ddmbridge simulated VM (%s profile)", vm.opt.Profile))
		out = binary.BigEndian.AppendUint32(out, 1)
		out = binary.BigEndian.AppendUint32(out, 6)
		out = jdwpString(out, "0")
		out = jdwpString(out, "Dalvik")
	case [2]byte{setVM, cmdIDSizes}:
		for range 5 {
			out = binary.BigEndian.AppendUint32(out, objectIDSize)
		}
	case [2]byte{setVM, cmdAllThreads}:
		vm.mu.Lock()
		ts := sortedThreads(vm.threads)
		out = binary.BigEndian.AppendUint32(out, uint32(len(ts)))
		for _, t := range ts {
			out = binary.BigEndian.AppendUint64(out, t.jdwpID)
		}
		vm.mu.Unlock()
	case [2]byte{setVM, cmdCapabilities}:
		out = make([]byte, 7)
	case [2]byte{setVM, cmdCapabilitiesNew}:
		out = make([]byte, 32)
	case [2]byte{setVM, cmdSuspend}, [2]byte{setVM, cmdResume}:
		vm.mu.Lock()
		for _, t := range vm.threads {
			t.suspended = p.Cmd == cmdSuspend
		}
		vm.mu.Unlock()
	case [2]byte{setVM, cmdDispose}, [2]byte{setVM, cmdExit}:
		keep = false
	case [2]byte{setThread, cmdThreadName}, [2]byte{setThread, cmdThreadSuspend}, [2]byte{setThread, cmdThreadResume}, [2]byte{setThread, cmdThreadStatus}:
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
			switch p.Cmd {
			case cmdThreadName:
				out = jdwpString(nil, t.name)
			case cmdThreadSuspend, cmdThreadResume:
				t.suspended = p.Cmd == cmdThreadSuspend
			case cmdThreadStatus:
				out = binary.BigEndian.AppendUint32(nil, uint32(jdwpThreadStatus(t.status)))
				suspended := uint32(0)
				if t.suspended {
					suspended = uint32(jdwp.SuspendStatusSuspended)
				}
				out = binary.BigEndian.AppendUint32(out, suspended)
			}
		}
		vm.mu.Unlock()
	default:
		code = jdwp.ErrNotImplemented
	}
	s.reply(p.ID, code, out)
	return keep
}

// jdwpThreadStatus maps a DDM thread state to ThreadReference.Status's.
func jdwpThreadStatus(st ddm.ThreadState) jdwp.ThreadStatus {
	switch st {
	case ddm.ThreadZombie:
		return jdwp.ThreadZombie
	case ddm.ThreadTimedWait:
		return jdwp.ThreadSleeping
	case ddm.ThreadMonitor:
		return jdwp.ThreadMonitor
	case ddm.ThreadWait, ddm.ThreadVMWait:
		return jdwp.ThreadWait
	}
	return jdwp.ThreadRunning
}

// Passthrough to a real JVM.

// queryIDBase is where the simulator's own command ids to the JVM start, far
// from debuggers' small ids.
const queryIDBase = 0x7E000000

// connectJVM dials the JVM, handshakes, and reads its threads so DDM reports
// them. Packets the JVM sends meanwhile are returned to be forwarded.
func (s *session) connectJVM() ([]*jdwp.Packet, error) {
	addr := s.vm.opt.JVM
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, fmt.Errorf("dial JVM %s: %w — is it started with -agentlib:jdwp=transport=dt_socket,server=y,address=%s?", addr, err, addr)
	}
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(nc, jdwp.HandshakeString); err != nil {
		nc.Close()
		return nil, fmt.Errorf("JVM %s handshake: %w", addr, err)
	}
	buf := make([]byte, len(jdwp.HandshakeString))
	if _, err := io.ReadFull(nc, buf); err != nil || string(buf) != jdwp.HandshakeString {
		nc.Close()
		return nil, fmt.Errorf("JVM %s handshake: got %q: %v", addr, buf, err)
	}
	s.jvm = nc
	r := bufio.NewReader(nc)
	var early []*jdwp.Packet
	id := uint32(queryIDBase)
	call := func(set, cmd byte, data []byte) ([]byte, error) {
		id++
		if err := jdwp.WritePacket(nc, &jdwp.Packet{ID: id, CmdSet: set, Cmd: cmd, Data: data}); err != nil {
			return nil, err
		}
		for {
			p, err := jdwp.ReadPacket(r, 0)
			if err != nil {
				return nil, err
			}
			if !p.IsReply() || p.ID != id {
				early = append(early, p)
				continue
			}
			if p.Error != jdwp.ErrNone {
				return nil, p.Error
			}
			return p.Data, nil
		}
	}
	sizes, err := call(setVM, cmdIDSizes, nil)
	if err != nil || len(sizes) < 20 {
		nc.Close()
		return nil, fmt.Errorf("JVM %s IDSizes: %v", addr, err)
	}
	oid := int(binary.BigEndian.Uint32(sizes[8:]))
	all, err := call(setVM, cmdAllThreads, nil)
	if err != nil || len(all) < 4 || oid < 1 || oid > 8 {
		nc.Close()
		return nil, fmt.Errorf("JVM %s AllThreads: %v", addr, err)
	}
	n := int(binary.BigEndian.Uint32(all))
	threads := map[uint32]*thread{}
	for i := 0; i < n && 4+(i+1)*oid <= len(all); i++ {
		raw := all[4+i*oid : 4+(i+1)*oid]
		var tid uint64
		for _, b := range raw {
			tid = tid<<8 | uint64(b)
		}
		name := fmt.Sprintf("thread-%d", i+1)
		if nb, err := call(setThread, cmdThreadName, raw); err == nil && len(nb) >= 4 && int(binary.BigEndian.Uint32(nb)) <= len(nb)-4 {
			name = string(nb[4 : 4+binary.BigEndian.Uint32(nb)])
		}
		t := &thread{id: uint32(i + 1), name: name, status: ddm.ThreadRunning, tid: s.vm.opt.PID + uint32(i), jdwpID: tid}
		threads[t.id] = t
	}
	nc.SetDeadline(time.Time{})
	s.vm.mu.Lock()
	s.vm.threads = threads // DDM now reports the JVM's real threads
	s.vm.nextTID = uint32(n)
	s.vm.mu.Unlock()
	s.log.Info().Str("jvm", addr).Int("threads", n).Msg("passing JDWP through to the JVM")
	return early, nil
}

func (s *session) toJVM(p *jdwp.Packet) error {
	s.jvmWmu.Lock()
	defer s.jvmWmu.Unlock()
	return jdwp.WritePacket(s.jvm, p)
}

// pumpFromJVM forwards every JVM packet to the session unchanged.
func (s *session) pumpFromJVM() {
	r := bufio.NewReader(s.jvm)
	for {
		p, err := jdwp.ReadPacket(r, 0)
		if err != nil {
			s.log.Debug().Err(err).Msg("JVM connection ended; closing the session")
			s.nc.Close()
			return
		}
		if err := s.send(p); err != nil {
			s.jvm.Close()
			return
		}
	}
}

package jdwp

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// HeaderSize is the size of every JDWP packet header: length u4, id u4, flags u1,
// then either command set u1 + command u1 (commands) or error code u2 (replies).
const HeaderSize = 11

// FlagReply marks a reply packet.
const FlagReply = 0x80

// DefaultMaxPacketSize bounds the length field accepted from a peer. A real VM's
// largest packets (class lists, bytecodes of big methods) are far below it.
const DefaultMaxPacketSize = 64 << 20

// HandshakeString is the 14-byte string both sides send before any packet.
const HandshakeString = "JDWP-Handshake"

// Packet is one JDWP packet, command or reply.
type Packet struct {
	ID     uint32
	Flags  byte
	CmdSet byte      // command packets only
	Cmd    byte      // command packets only
	Error  ErrorCode // reply packets only
	Data   []byte
}

// IsReply reports whether p is a reply packet.
func (p *Packet) IsReply() bool { return p.Flags&FlagReply != 0 }

func (p *Packet) String() string {
	if p.IsReply() {
		return fmt.Sprintf("reply id=%d err=%s len=%d", p.ID, p.Error.String(), len(p.Data))
	}
	return fmt.Sprintf("command id=%d %s len=%d", p.ID, CommandName(p.CmdSet, p.Cmd), len(p.Data))
}

// AppendTo appends the wire form of p to b.
func (p *Packet) AppendTo(b []byte) []byte {
	n := HeaderSize + len(p.Data)
	b = binary.BigEndian.AppendUint32(b, uint32(n))
	b = binary.BigEndian.AppendUint32(b, p.ID)
	b = append(b, p.Flags)
	if p.IsReply() {
		b = binary.BigEndian.AppendUint16(b, uint16(p.Error))
	} else {
		b = append(b, p.CmdSet, p.Cmd)
	}
	return append(b, p.Data...)
}

// Bytes returns the wire form of p.
func (p *Packet) Bytes() []byte { return p.AppendTo(make([]byte, 0, HeaderSize+len(p.Data))) }

// Framing errors. ReadPacket wraps them with the offending values.
var (
	ErrPacketTooShort = errors.New("jdwp: packet length below the 11-byte header")
	ErrPacketTooLarge = errors.New("jdwp: packet length exceeds the configured maximum")
)

// ParsePacketHeader decodes an 11-byte header and returns the packet (without data)
// and the number of data bytes that follow.
func ParsePacketHeader(h []byte, maxSize int) (Packet, int, error) {
	if len(h) < HeaderSize {
		return Packet{}, 0, fmt.Errorf("%w: have %d bytes", ErrPacketTooShort, len(h))
	}
	n := binary.BigEndian.Uint32(h[0:4])
	if n < HeaderSize {
		return Packet{}, 0, fmt.Errorf("%w: length field %d", ErrPacketTooShort, n)
	}
	if maxSize <= 0 {
		maxSize = DefaultMaxPacketSize
	}
	if uint64(n) > uint64(maxSize) {
		return Packet{}, 0, fmt.Errorf("%w: length field %d > %d", ErrPacketTooLarge, n, maxSize)
	}
	p := Packet{ID: binary.BigEndian.Uint32(h[4:8]), Flags: h[8]}
	if p.IsReply() {
		p.Error = ErrorCode(binary.BigEndian.Uint16(h[9:11]))
	} else {
		p.CmdSet, p.Cmd = h[9], h[10]
	}
	return p, int(n) - HeaderSize, nil
}

// ReadPacket reads one packet from r. Lengths outside [11, maxSize] are rejected
// before any data is read or allocated; maxSize <= 0 means DefaultMaxPacketSize.
//
// From a *bufio.Reader the header is parsed where it is buffered, without
// copying it out (a packet costs one allocation, two with data).
func ReadPacket(r io.Reader, maxSize int) (*Packet, error) {
	var p Packet
	var n int
	var err error
	if br, ok := r.(*bufio.Reader); ok {
		p, n, err = readHeaderBuffered(br, maxSize)
	} else {
		var h [HeaderSize]byte
		if _, err := io.ReadFull(r, h[:]); err != nil {
			return nil, err
		}
		p, n, err = ParsePacketHeader(h[:], maxSize)
	}
	if err != nil {
		return nil, err
	}
	if err := readData(r, &p, n); err != nil {
		return nil, err
	}
	return &p, nil
}

// readData reads the n data bytes of p, whose header was read.
func readData(r io.Reader, p *Packet, n int) error {
	if n == 0 {
		return nil
	}
	p.Data = make([]byte, n)
	if _, err := io.ReadFull(r, p.Data); err != nil {
		return truncated(p, n, err)
	}
	return nil
}

func truncated(p *Packet, n int, err error) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("jdwp: truncated packet id=%d: want %d data bytes: %w", p.ID, n, err)
}

// readHeaderBuffered reads and parses a packet header from br, with
// io.ReadFull's errors (io.EOF before any byte, else io.ErrUnexpectedEOF).
func readHeaderBuffered(br *bufio.Reader, maxSize int) (Packet, int, error) {
	h, err := br.Peek(HeaderSize)
	if err != nil {
		if len(h) > 0 && err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return Packet{}, 0, err
	}
	p, n, err := ParsePacketHeader(h, maxSize)
	if err != nil {
		return Packet{}, 0, err
	}
	br.Discard(HeaderSize)
	return p, n, nil
}

// WritePacket writes p to w in one Write call.
func WritePacket(w io.Writer, p *Packet) error {
	_, err := w.Write(p.Bytes())
	return err
}

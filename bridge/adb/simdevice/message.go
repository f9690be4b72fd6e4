package simdevice

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Command is a transport message's command: 4 ASCII characters read as a
// little-endian u32.
type Command uint32

// The transport commands (shared/reference/adb.md, "Transport protocol").
const (
	CNXN Command = 0x4e584e43
	AUTH Command = 0x48545541
	OPEN Command = 0x4e45504f
	OKAY Command = 0x59414b4f
	CLSE Command = 0x45534c43
	WRTE Command = 0x45545257
	SYNC Command = 0x434e5953
	STLS Command = 0x534c5453
)

func (c Command) String() string {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], uint32(c))
	for _, x := range b {
		if x < 'A' || x > 'Z' {
			return fmt.Sprintf("0x%08x", uint32(c))
		}
	}
	return string(b[:])
}

// Protocol versions: at VersionSkipChecksum and later data_check is 0.
const (
	VersionMin          = 0x01000000
	VersionSkipChecksum = 0x01000001
	// MaxPayload is what a v29 server and a modern adbd offer (1 MiB).
	MaxPayload = 1 << 20
)

// AUTH message types (arg0).
const (
	AuthToken        = 1
	AuthSignature    = 2
	AuthRSAPublicKey = 3
)

// HeaderSize is the transport message header: six little-endian u32.
const HeaderSize = 24

// Message is one transport message.
type Message struct {
	Command    Command
	Arg0, Arg1 uint32
	Data       []byte
}

func (m *Message) String() string {
	return fmt.Sprintf("%v(%d, %d, %d bytes)", m.Command, m.Arg0, m.Arg1, len(m.Data))
}

// Checksum is the legacy data_check: the byte sum of the payload.
func Checksum(data []byte) uint32 {
	var s uint32
	for _, b := range data {
		s += uint32(b)
	}
	return s
}

// Encode returns the header and payload; checksum fills data_check (needed
// below VersionSkipChecksum, 0 otherwise).
func (m *Message) Encode(checksum bool) []byte {
	b := make([]byte, HeaderSize, HeaderSize+len(m.Data))
	le := binary.LittleEndian
	le.PutUint32(b[0:], uint32(m.Command))
	le.PutUint32(b[4:], m.Arg0)
	le.PutUint32(b[8:], m.Arg1)
	le.PutUint32(b[12:], uint32(len(m.Data)))
	if checksum {
		le.PutUint32(b[16:], Checksum(m.Data))
	}
	le.PutUint32(b[20:], uint32(m.Command)^0xFFFFFFFF)
	return append(b, m.Data...)
}

// ErrBadMagic means the peer is not speaking the adb transport protocol (or
// the stream lost sync).
var ErrBadMagic = errors.New("adb transport: bad magic (not an adb peer, or out of sync)")

// ReadMessage reads one message, refusing payloads longer than maxData. The
// magic is checked; data_check is not (the real server never does either).
func ReadMessage(r io.Reader, maxData uint32) (*Message, error) {
	var h [HeaderSize]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	m := &Message{Command: Command(le.Uint32(h[0:])), Arg0: le.Uint32(h[4:]), Arg1: le.Uint32(h[8:])}
	if le.Uint32(h[20:]) != uint32(m.Command)^0xFFFFFFFF {
		return nil, fmt.Errorf("%w: command %v, magic 0x%08x", ErrBadMagic, m.Command, le.Uint32(h[20:]))
	}
	n := le.Uint32(h[12:])
	if n > maxData {
		return nil, fmt.Errorf("adb transport: %v carries %d bytes, more than the %d allowed", m.Command, n, maxData)
	}
	if n > 0 {
		m.Data = make([]byte, n)
		if _, err := io.ReadFull(r, m.Data); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
	return m, nil
}

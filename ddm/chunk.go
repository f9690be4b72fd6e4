package ddm

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// CommandSet and Command identify DDM packets inside JDWP, in both directions.
const (
	CommandSet byte = 0xC7
	Command    byte = 0x01
)

// ChunkHeaderSize is the size of a chunk's type and length fields.
const ChunkHeaderSize = 8

// DefaultMaxInflated bounds the size the ZLIB chunks of one packet may
// inflate to, together, unless [ParseOptions.MaxInflated] says otherwise.
const DefaultMaxInflated = 64 << 20

// Type is a chunk type: four ASCII characters packed big-endian ("HELO" = 0x48454C4F).
type Type uint32

// TypeOf packs a four-character string into a Type. It panics unless len(s) == 4,
// so use it only for constants.
func TypeOf(s string) Type {
	if len(s) != 4 {
		panic("ddm: chunk type must be 4 bytes: " + s)
	}
	return Type(binary.BigEndian.Uint32([]byte(s)))
}

// String returns the four characters, or hex when they are not printable ASCII.
func (t Type) String() string {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], uint32(t))
	for _, c := range b {
		if c < 0x20 || c > 0x7E {
			return fmt.Sprintf("0x%08X", uint32(t))
		}
	}
	return string(b[:])
}

// Every chunk type in the reference (§3).
var (
	HELO = TypeOf("HELO") // hello / VM identity
	FEAT = TypeOf("FEAT") // feature strings
	APNM = TypeOf("APNM") // app name changed
	WAIT = TypeOf("WAIT") // waiting for debugger
	STAG = TypeOf("STAG") // boot stage (API 34+)
	EXIT = TypeOf("EXIT") // make the VM exit
	TEST = TypeOf("TEST") // debugging aid
	FAIL = TypeOf("FAIL") // generic error reply
	DBGD = TypeOf("DBGD") // debugger disconnected (seed only)
	DTRC = TypeOf("DTRC") // trace transfer placeholder (seed only, no layout)
	ZLIB = TypeOf("ZLIB") // compression wrapper (seed only)
	THEN = TypeOf("THEN") // thread notifications on/off
	THCR = TypeOf("THCR") // thread created
	THNM = TypeOf("THNM") // thread renamed
	THDE = TypeOf("THDE") // thread died
	THST = TypeOf("THST") // thread status
	STKL = TypeOf("STKL") // stack of one thread
	HPIF = TypeOf("HPIF") // heap summary
	HPGC = TypeOf("HPGC") // run GC
	HPSG = TypeOf("HPSG") // heap bitmap, merged runs
	HPSO = TypeOf("HPSO") // heap bitmap, per object
	HPST = TypeOf("HPST") // heap dump start
	HPEN = TypeOf("HPEN") // heap dump end
	NHSG = TypeOf("NHSG") // native heap bitmap
	NHST = TypeOf("NHST") // native dump start
	NHEN = TypeOf("NHEN") // native dump end
	NHGT = TypeOf("NHGT") // native allocations + maps
	HPDU = TypeOf("HPDU") // hprof to a device file
	HPDS = TypeOf("HPDS") // hprof streamed
	REAE = TypeOf("REAE") // allocation tracking on/off
	REAQ = TypeOf("REAQ") // allocation tracking status
	REAL = TypeOf("REAL") // recent allocations
	MPRS = TypeOf("MPRS") // method trace to file, start
	MPRE = TypeOf("MPRE") // method trace to file, end
	MPSS = TypeOf("MPSS") // streamed method trace, start
	MPSE = TypeOf("MPSE") // streamed method trace, end / data
	SPSS = TypeOf("SPSS") // sampling profiler, start
	SPSE = TypeOf("SPSE") // sampling profiler, end
	MPRQ = TypeOf("MPRQ") // tracing mode query
	VULW = TypeOf("VULW") // list window roots
	VURT = TypeOf("VURT") // operation on a view root
	VUOP = TypeOf("VUOP") // operation on one view
	VUGL = TypeOf("VUGL") // GL tracing on/off
	GLTR = TypeOf("GLTR") // GL trace level (short-lived, no documented layout)
)

// Chunk is one undecoded chunk.
type Chunk struct {
	Type Type
	Data []byte
}

func (c Chunk) String() string { return fmt.Sprintf("%s(%d bytes)", c.Type, len(c.Data)) }

// AppendChunk appends c's framing and data to b.
func AppendChunk(b []byte, c Chunk) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(c.Type))
	b = binary.BigEndian.AppendUint32(b, uint32(len(c.Data)))
	return append(b, c.Data...)
}

// EncodeChunks returns the payload of one DDM packet carrying cs in order.
// Real VMs and ddmlib read only the first chunk of a packet; send one unless
// the peer is known to follow the 2007 design.
func EncodeChunks(cs ...Chunk) []byte {
	n := 0
	for _, c := range cs {
		n += ChunkHeaderSize + len(c.Data)
	}
	b := make([]byte, 0, n)
	for _, c := range cs {
		b = AppendChunk(b, c)
	}
	return b
}

// Compress wraps c in a seed-style ZLIB chunk: u4 inner type, u4 inflated
// length, then the zlib (RFC 1950) stream of c.Data.
func Compress(c Chunk) Chunk {
	var buf bytes.Buffer
	buf.Write(binary.BigEndian.AppendUint32(nil, uint32(c.Type)))
	buf.Write(binary.BigEndian.AppendUint32(nil, uint32(len(c.Data))))
	zw := zlib.NewWriter(&buf)
	zw.Write(c.Data) // writes to a bytes.Buffer cannot fail
	zw.Close()
	return Chunk{Type: ZLIB, Data: buf.Bytes()}
}

// ParseOptions tunes [ParseChunks].
type ParseOptions struct {
	// MaxInflated bounds the inflated size of the ZLIB chunks of one
	// payload, together (a packet of many small ZLIB chunks is a bomb as
	// much as one large one); 0 means DefaultMaxInflated.
	MaxInflated int
}

// Framing errors; ParseChunks wraps them with the offending values.
var (
	ErrTruncated    = errors.New("ddm: truncated chunk")
	ErrTooLarge     = errors.New("ddm: ZLIB chunk inflates beyond the configured bound")
	ErrBadZLIB      = errors.New("ddm: bad ZLIB chunk")
	ErrEmptyPayload = errors.New("ddm: DDM packet without a chunk")
)

// ParseChunks splits a DDM packet payload into its chunks, inflating ZLIB
// chunks (nested ZLIB is rejected). Chunk data aliases payload except for
// inflated chunks. An empty payload (the VM's "nothing to say" reply) yields
// no chunks and no error.
func ParseChunks(payload []byte, opt ParseOptions) ([]Chunk, error) {
	var out []Chunk
	limit := opt.MaxInflated
	if limit <= 0 {
		limit = DefaultMaxInflated
	}
	inflated := 0 // by the ZLIB chunks so far
	for off := 0; off < len(payload); {
		rest := payload[off:]
		if len(rest) < ChunkHeaderSize {
			return out, fmt.Errorf("%w: %d stray bytes after %d chunk(s) at offset %d", ErrTruncated, len(rest), len(out), off)
		}
		t := Type(binary.BigEndian.Uint32(rest))
		n := binary.BigEndian.Uint32(rest[4:])
		if uint64(n) > uint64(len(rest)-ChunkHeaderSize) {
			return out, fmt.Errorf("%w: %s at offset %d claims %d data bytes, %d remain", ErrTruncated, t, off, n, len(rest)-ChunkHeaderSize)
		}
		c := Chunk{Type: t, Data: rest[ChunkHeaderSize : ChunkHeaderSize+int(n)]}
		if t == ZLIB {
			var err error
			if c, err = inflate(c.Data, limit-inflated); err != nil {
				if inflated > 0 && errors.Is(err, ErrTooLarge) {
					err = fmt.Errorf("%w (the packet's earlier ZLIB chunks inflated to %d of the %d bytes allowed)", err, inflated, limit)
				}
				return out, fmt.Errorf("chunk %d at offset %d: %w", len(out), off, err)
			}
			inflated += len(c.Data)
		}
		out = append(out, c)
		off += ChunkHeaderSize + int(n)
	}
	return out, nil
}

// inflate unpacks a ZLIB chunk's data of at most limit bytes (limit may be
// 0: the packet's bound is used up).
func inflate(data []byte, limit int) (Chunk, error) {
	if len(data) < 8 {
		return Chunk{}, fmt.Errorf("%w: %d bytes, need inner type and length", ErrBadZLIB, len(data))
	}
	t := Type(binary.BigEndian.Uint32(data))
	n := binary.BigEndian.Uint32(data[4:])
	if t == ZLIB {
		return Chunk{}, fmt.Errorf("%w: nested ZLIB", ErrBadZLIB)
	}
	if uint64(n) > uint64(limit) {
		return Chunk{}, fmt.Errorf("%w: %s declares %d bytes, bound %d", ErrTooLarge, t, n, limit)
	}
	zr, err := zlib.NewReader(bytes.NewReader(data[8:]))
	if err != nil {
		return Chunk{}, fmt.Errorf("%w: %s: %v", ErrBadZLIB, t, err)
	}
	out := make([]byte, 0, min(int(n), 1<<20))
	w := bytes.NewBuffer(out)
	got, err := io.Copy(w, io.LimitReader(zr, int64(n)+1))
	if err != nil {
		return Chunk{}, fmt.Errorf("%w: %s: %v", ErrBadZLIB, t, err)
	}
	if got != int64(n) {
		return Chunk{}, fmt.Errorf("%w: %s inflates to %d+ bytes, header says %d", ErrBadZLIB, t, got, n)
	}
	return Chunk{Type: t, Data: w.Bytes()}, nil
}

// FailError is a FAIL reply from the VM, as an error.
type FailError struct {
	Request Type   // the request that failed; 0 when unknown
	Code    uint32 // handler-specific; most VM handlers use 1, view debugging -1..-3
	Message string
}

func (e *FailError) Error() string {
	if e.Request != 0 {
		return fmt.Sprintf("ddm: VM rejected %s: code %d: %s", e.Request, int32(e.Code), e.Message)
	}
	return fmt.Sprintf("ddm: VM failure code %d: %s", int32(e.Code), e.Message)
}

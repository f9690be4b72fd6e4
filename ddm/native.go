package ddm

import (
	"encoding/binary"
)

// nhgtSignature starts the 64-bit NHGT layout (little-endian).
const nhgtSignature = 0x812345DD

// NativeHeap is the NHGT reply: a malloc-debug leak dump in the VM's native
// (little-endian) byte order. PointerSize 8 encodes the signed 64-bit layout
// (signature, version 2); 4 the 32-bit layout without a signature.
type NativeHeap struct {
	PointerSize   int
	Maps          string // /proc/self/maps text
	TotalMemory   uint64
	BacktraceSize uint64 // return addresses per record
	Allocs        []NativeAlloc
}

// NativeAlloc is one NHGT record.
type NativeAlloc struct {
	Size      uint64 // low 31 bits of the size field
	Zygote    bool   // bit 31: allocated in a zygote child
	Count     uint64 // identical allocations
	Backtrace []uint64
}

const nhgtZygoteBit = 1 << 31

func (m *NativeHeap) walk(c *coder) {
	c.order = binary.LittleEndian
	ps := m.PointerSize
	if c.enc {
		if ps == 8 {
			sig, ver, p := uint32(nhgtSignature), uint16(2), uint16(8)
			c.u4(&sig)
			c.u2(&ver)
			c.u2(&p)
		} else {
			ps = 4
		}
	} else {
		ps = 4
		if c.remaining() >= 4 && binary.LittleEndian.Uint32(c.b) == nhgtSignature {
			var sig uint32
			var ver, p uint16
			c.u4(&sig)
			c.u2(&ver)
			c.u2(&p)
			if ver != 2 || p != 4 && p != 8 {
				c.failf("NHGT version %d / pointer size %d not supported (want 2 and 4 or 8)", ver, p)
				return
			}
			ps = int(p)
		}
		m.PointerSize = ps
	}
	recSize := uint64(ps) * (2 + m.BacktraceSize)
	mapSize, allocSize, infoSize := uint64(len(m.Maps)), recSize*uint64(len(m.Allocs)), recSize
	if len(m.Allocs) == 0 && c.enc {
		allocSize, infoSize = 0, 0
	}
	for _, f := range []*uint64{&mapSize, &allocSize, &infoSize, &m.TotalMemory, &m.BacktraceSize} {
		c.word(f, ps)
	}
	if c.enc {
		c.b = append(c.b, m.Maps...)
		for _, a := range m.Allocs {
			m.walkAlloc(c, &a, ps)
		}
		return
	}
	if c.err != nil {
		return
	}
	if mapSize > uint64(c.remaining()) {
		c.failf("%w: NHGT maps text of %d bytes, %d left", ErrShort, mapSize, c.remaining())
		return
	}
	m.Maps = string(c.take(int(mapSize)))
	if infoSize == 0 {
		return
	}
	if m.BacktraceSize > infoSize/uint64(ps) || infoSize != uint64(ps)*(2+m.BacktraceSize) {
		c.failf("NHGT record size %d does not hold size, count and %d return addresses of %d bytes", infoSize, m.BacktraceSize, ps)
		return
	}
	if allocSize%infoSize != 0 || allocSize > uint64(c.remaining()) {
		c.failf("NHGT allocation area of %d bytes is not a multiple of %d or exceeds the %d bytes left", allocSize, infoSize, c.remaining())
		return
	}
	list(c, int(allocSize/infoSize), &m.Allocs, int(infoSize), func(a *NativeAlloc) { m.walkAlloc(c, a, ps) })
}

func (m *NativeHeap) walkAlloc(c *coder, a *NativeAlloc, ps int) {
	size := a.Size
	if a.Zygote {
		size |= nhgtZygoteBit
	}
	c.word(&size, ps)
	a.Size, a.Zygote = size&(nhgtZygoteBit-1), size&nhgtZygoteBit != 0
	c.word(&a.Count, ps)
	if !c.enc {
		a.Backtrace = make([]uint64, m.BacktraceSize)
	}
	for i := range a.Backtrace[:min(uint64(len(a.Backtrace)), m.BacktraceSize)] {
		c.word(&a.Backtrace[i], ps)
	}
	for i := len(a.Backtrace); c.enc && uint64(i) < m.BacktraceSize; i++ {
		var zero uint64 // padding
		c.word(&zero, ps)
	}
}

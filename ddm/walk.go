package ddm

import (
	"math"
)

// The layouts of §4–§5 of the reference, one walk per struct.

func (m *Raw) walk(c *coder)                 { c.rest(&m.Data) }
func (m *Empty) walk(*coder)                 {}
func (m *HelloRequest) walk(c *coder)        { c.u4(&m.ServerVersion) }
func (m *Features) walk(c *coder)            { c.strs(&m.Names) }
func (m *Wait) walk(c *coder)                { c.u1(&m.Reason) }
func (m *BootStage) walk(c *coder)           { c.typ(&m.Stage) }
func (m *Exit) walk(c *coder)                { c.u4(&m.Status) }
func (m *Fail) walk(c *coder)                { c.u4(&m.Code); c.str16(&m.Message) }
func (m *ThreadNotify) walk(c *coder)        { c.bool1(&m.Enable) }
func (m *ThreadName) walk(c *coder)          { c.u4(&m.ID); c.str16(&m.Name) }
func (m *ThreadDied) walk(c *coder)          { c.u4(&m.ID) }
func (m *StackRequest) walk(c *coder)        { c.u4(&m.ThreadID) }
func (m *HeapInfoRequest) walk(c *coder)     { c.u1(&m.When) }
func (m *SegmentRequest) walk(c *coder)      { c.u1(&m.When); c.u1(&m.What) }
func (m *HeapDumpStart) walk(c *coder)       { c.u4(&m.HeapID) }
func (m *HeapDumpEnd) walk(c *coder)         { c.u4(&m.HeapID) }
func (m *HprofDumpRequest) walk(c *coder)    { c.str16(&m.Path) }
func (m *Result) walk(c *coder)              { c.u1(&m.Code) }
func (m *AllocTrackingEnable) walk(c *coder) { c.bool1(&m.Enable) }
func (m *AllocTrackingStatus) walk(c *coder) { c.bool1(&m.Enabled) }
func (m *ProfilingStatus) walk(c *coder)     { c.u1(&m.Mode) }
func (m *ViewListWindows) walk(c *coder)     { c.u4(&m.Flag) }
func (m *ViewWindows) walk(c *coder)         { c.strs(&m.Names) }
func (m *GLTracing) walk(c *coder)           { c.u4(&m.Enable) }

func (m *Hello) walk(c *coder) {
	c.u4(&m.ProtocolVersion)
	c.u4(&m.PID)
	// Both lengths come before both strings (fields 3–6).
	nv, na := uint32(utf16Len(m.VMIdent)), uint32(utf16Len(m.AppName))
	c.u4(&nv)
	c.u4(&na)
	c.utf16(&m.VMIdent, nv)
	c.utf16(&m.AppName, na)
	if c.tail(&m.Tails) {
		c.u4(&m.UserID)
	}
	if c.tail(&m.Tails) {
		c.str16(&m.ABI)
	}
	if c.tail(&m.Tails) {
		c.str16(&m.JVMFlags)
	}
	if c.tail(&m.Tails) {
		c.bool1(&m.NativeDebuggable)
	}
	if c.tail(&m.Tails) {
		c.str16(&m.PackageName)
	}
	if c.tail(&m.Tails) {
		c.typ(&m.BootStage)
	}
}

func (m *AppName) walk(c *coder) {
	c.str16(&m.Name)
	if c.tail(&m.Tails) {
		c.u4(&m.UserID)
	}
	if c.tail(&m.Tails) {
		c.str16(&m.PackageName)
	}
}

func (m *ThreadStatusRequest) walk(c *coder) {
	if c.enc && m.Draft || !c.enc && c.remaining() >= 4 {
		m.Draft = true
		c.u4(&m.IntervalMs)
	}
}

// Sizes of the real THST layout.
const (
	thstHeaderLen = 4
	thstEntrySize = 18
	thstEntryMin  = 17 // everything but isDaemon, which ddmlib reads only when present
)

func (m *ThreadStatus) walk(c *coder) {
	if !c.enc && c.remaining() > 0 && c.b[c.off] == 0 {
		m.Layout = LayoutDraft
	}
	if m.Layout == LayoutDraft {
		n := uint32(len(m.Threads))
		c.u4(&n)
		list(c, int(n), &m.Threads, 6, func(t *ThreadInfo) {
			c.u4(&t.ID)
			c.u1((*uint8)(&t.Status))
			c.bool1(&t.Suspended)
		})
		return
	}
	hl, es, n := uint8(thstHeaderLen), uint8(thstEntrySize), uint16(len(m.Threads))
	c.u1(&hl)
	c.u1(&es)
	c.u2(&n)
	if c.decoding() && (hl < thstHeaderLen || es < thstEntryMin) {
		c.failf("THST header length %d / entry size %d below the minimum %d / %d", hl, es, thstHeaderLen, thstEntryMin)
		return
	}
	c.take(int(hl) - thstHeaderLen) // future header fields
	list(c, int(n), &m.Threads, int(es), func(t *ThreadInfo) {
		c.u4(&t.ID)
		c.u1((*uint8)(&t.Status))
		c.u4(&t.TID)
		c.u4(&t.UTime)
		c.u4(&t.STime)
		if es >= thstEntrySize {
			c.bool1(&t.Daemon)
		}
		c.take(int(es) - thstEntrySize)
	})
}

func (m *Stack) walk(c *coder) {
	var reserved uint32
	c.u4(&reserved)
	c.u4(&m.ThreadID)
	counted(c, &m.Frames, 16, func(f *Frame) {
		c.str16(&f.Class)
		c.str16(&f.Method)
		c.str16(&f.File)
		c.s4(&f.Line)
	})
}

func (m *HeapInfo) walk(c *coder) {
	counted(c, &m.Heaps, 29, func(h *HeapStats) {
		c.u4(&h.HeapID)
		c.u8(&h.TimestampMs)
		c.u1(&h.Reason)
		c.u4(&h.MaxBytes)
		c.u4(&h.SizeBytes)
		c.u4(&h.AllocatedBytes)
		c.u4(&h.AllocatedObjects)
	})
}

func (m *HeapSegment) walk(c *coder) {
	c.u4(&m.HeapID)
	c.u1(&m.UnitSize)
	c.u4(&m.Start)
	c.u4(&m.Offset)
	c.u4(&m.UnitCount)
	c.rest(&m.Runs)
}

func (m *TraceStart) walk(c *coder) {
	c.u4(&m.BufferSize)
	c.u4(&m.Flags)
	switch m.Type {
	case MPRS:
		c.str16(&m.Path)
	case SPSS:
		c.u4(&m.IntervalMicros)
	}
}

func (m *ViewRootOp) walk(c *coder) {
	c.u4(&m.Op)
	c.str16(&m.Root)
	switch m.Op {
	case ViewRootDumpHierarchy:
		c.u4(&m.SkipChildren)
		c.u4(&m.IncludeProperties)
		if c.enc && m.HasV2 || c.decoding() && c.remaining() >= 4 {
			m.HasV2 = true
			c.u4(&m.UseV2)
		}
	case ViewRootCaptureLayers, ViewRootDumpTheme:
	default:
		c.rest(&m.Extra)
	}
}

func (m *ViewOp) walk(c *coder) {
	c.u4(&m.Op)
	c.str16(&m.Root)
	c.str16(&m.View)
	switch m.Op {
	case ViewInvokeMethod:
		c.str16(&m.Method)
		if c.enc && m.HasArgs || c.decoding() && c.remaining() > 0 {
			m.HasArgs = true
			counted(c, &m.Args, 3, c.viewValue)
		}
	case ViewSetLayoutParam:
		c.str16(&m.Param)
		c.s4(&m.Value)
	case ViewCapture, ViewDumpDisplayList, ViewProfile:
	default:
		c.rest(&m.Extra)
	}
}

// viewValueSizes gives the value size of each scalar VUOP type character.
var viewValueSizes = map[byte]int{'Z': 1, 'B': 1, 'C': 2, 'S': 2, 'I': 4, 'F': 4, 'J': 8, 'D': 8, 'V': 0}

func (c *coder) viewValue(v *ViewValue) {
	var sig uint16
	if c.enc && len(v.Sig) > 0 {
		sig = uint16(v.Sig[0])
	}
	c.u2(&sig)
	if c.err != nil {
		return
	}
	switch ch := byte(sig); {
	case sig == '[':
		elem := uint16('B')
		c.u2(&elem)
		if c.decoding() && elem != 'B' {
			c.failf("VUOP array argument of element type %q, only [B is defined", rune(elem))
			return
		}
		v.Sig = "[B"
		n := uint32(len(v.Bytes))
		c.u4(&n)
		if c.enc {
			c.b = append(c.b, v.Bytes...)
		} else if p := c.take(int(min(n, math.MaxInt32))); p != nil {
			v.Bytes = append([]byte{}, p...)
		}
	case sig == 'R':
		v.Sig = "R"
		n := uint16(len(v.Str))
		c.u2(&n)
		if c.enc {
			c.b = append(c.b, v.Str[:n]...)
		} else if p := c.take(int(n)); p != nil {
			v.Str = string(p)
		}
	default:
		size, ok := viewValueSizes[ch]
		if !ok || sig > 0xFF {
			c.failf("VUOP argument type 0x%04X is not one of Z B C S I J F D V R [", sig)
			return
		}
		v.Sig = string(rune(ch))
		c.sized(&v.Bits, size)
	}
}

// sized reads or writes an unsigned value of 0, 1, 2, 4 or 8 bytes.
func (c *coder) sized(v *uint64, size int) {
	switch size {
	case 1:
		u := uint8(*v)
		c.u1(&u)
		*v = uint64(u)
	case 2:
		u := uint16(*v)
		c.u2(&u)
		*v = uint64(u)
	case 4, 8:
		c.word(v, size)
	}
}

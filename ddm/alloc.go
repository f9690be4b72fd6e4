package ddm

import (
	"encoding/binary"
)

// AllocRecords is the REAL reply: recent allocations, most recent first.
type AllocRecords struct{ Records []AllocRecord }

// AllocRecord is one allocation. Class is a type descriptor as the VM sends it
// ("Ljava/lang/String;", "[I"); see [javalang.ClassName].
type AllocRecord struct {
	Size     uint32
	ThreadID uint16
	Class    string
	Frames   []AllocFrame
}

// AllocFrame is one frame of an allocation's stack; Line is clipped to 32767,
// -1 = no line info, -2 = native.
type AllocFrame struct {
	Class, Method, File string
	Line                int16
}

// REAL blob sizes (§5.5).
const (
	realHeaderLen      = 15
	realEntryHeaderLen = 9
	realFrameLen       = 8
)

// strTable collects the three REAL string tables in order of first use.
type strTable struct {
	names []string
	index map[string]uint16
}

func (t *strTable) add(s string) uint16 {
	if i, ok := t.index[s]; ok {
		return i
	}
	if t.index == nil {
		t.index = map[string]uint16{}
	}
	i := uint16(len(t.names))
	t.index[s] = i
	t.names = append(t.names, s)
	return i
}

func (m *AllocRecords) walk(c *coder) {
	if c.enc {
		m.encode(c)
	} else {
		m.decode(c)
	}
}

func (m *AllocRecords) encode(c *coder) {
	var classes, methods, files strTable
	var entries []byte
	for _, r := range m.Records {
		entries = binary.BigEndian.AppendUint32(entries, r.Size)
		entries = binary.BigEndian.AppendUint16(entries, r.ThreadID)
		entries = binary.BigEndian.AppendUint16(entries, classes.add(r.Class))
		entries = append(entries, uint8(min(len(r.Frames), 255)))
		for _, f := range r.Frames[:min(len(r.Frames), 255)] {
			entries = binary.BigEndian.AppendUint16(entries, classes.add(f.Class))
			entries = binary.BigEndian.AppendUint16(entries, methods.add(f.Method))
			entries = binary.BigEndian.AppendUint16(entries, files.add(f.File))
			entries = binary.BigEndian.AppendUint16(entries, uint16(f.Line))
		}
	}
	b := append(c.b, realHeaderLen, realEntryHeaderLen, realFrameLen)
	b = binary.BigEndian.AppendUint16(b, uint16(len(m.Records)))
	b = binary.BigEndian.AppendUint32(b, uint32(realHeaderLen+len(entries)))
	for _, t := range []*strTable{&classes, &methods, &files} {
		b = binary.BigEndian.AppendUint16(b, uint16(len(t.names)))
	}
	b = append(b, entries...)
	for _, t := range []*strTable{&classes, &methods, &files} {
		for _, s := range t.names {
			b = AppendStr16(b, s)
		}
	}
	c.b = b
}

func (m *AllocRecords) decode(c *coder) {
	var hl, ehl, fl uint8
	var count, nc, nm, nf uint16
	var strOff uint32
	c.u1(&hl)
	c.u1(&ehl)
	c.u1(&fl)
	c.u2(&count)
	c.u4(&strOff)
	c.u2(&nc)
	c.u2(&nm)
	c.u2(&nf)
	if c.err != nil {
		return
	}
	if hl < realHeaderLen || ehl < realEntryHeaderLen || fl < realFrameLen {
		c.failf("REAL header sizes %d/%d/%d below the minimum %d/%d/%d", hl, ehl, fl, realHeaderLen, realEntryHeaderLen, realFrameLen)
		return
	}
	if uint64(strOff) > uint64(len(c.b)) || int(hl) > len(c.b) {
		c.failf("REAL string table offset %d or header length %d beyond the %d-byte blob", strOff, hl, len(c.b))
		return
	}
	// String tables first, so entries can be resolved as they are read.
	st := newDecoder(c.b[strOff:])
	tables := make([][]string, 3)
	for i, n := range []uint16{nc, nm, nf} {
		list(st, int(n), &tables[i], 4, st.str16)
	}
	if st.err != nil {
		c.failf("REAL string table at %d: %w", strOff, st.err)
		return
	}
	lookup := func(table int, i uint16) string {
		if int(i) >= len(tables[table]) {
			c.failf("REAL %s index %d out of range (%d names)", [...]string{"class", "method", "file"}[table], i, len(tables[table]))
			return ""
		}
		return tables[table][i]
	}
	c.off = int(hl)
	list(c, int(count), &m.Records, int(ehl), func(r *AllocRecord) {
		var cls uint16
		var depth uint8
		c.u4(&r.Size)
		c.u2(&r.ThreadID)
		c.u2(&cls)
		c.u1(&depth)
		c.take(int(ehl) - realEntryHeaderLen)
		r.Class = lookup(0, cls)
		list(c, int(depth), &r.Frames, int(fl), func(f *AllocFrame) {
			var ci, mi, fi uint16
			c.u2(&ci)
			c.u2(&mi)
			c.u2(&fi)
			c.s2(&f.Line)
			c.take(int(fl) - realFrameLen)
			f.Class, f.Method, f.File = lookup(0, ci), lookup(1, mi), lookup(2, fi)
		})
	})
}

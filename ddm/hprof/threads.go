package hprof

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
)

// ReadThreadNames reads the names of the dump's threads (the contents of
// each thread object's Thread.name) back from src, which must read the
// bytes Parse read, so that root details name the thread ("thread "main"
// 0x…"). Parse keeps no array contents: this is one pass over src that
// skips every record but the few arrays it wants, and stops once it has
// them. Without it, a thread is named by its object and serial.
func (h *Heap) ReadThreadNames(src io.ReaderAt) error {
	want := map[uint64][]uint32{} // array id → the serials of the threads it names
	for k, kind := range h.rootKind {
		if kind != RootThreadObject || k >= len(h.rootAux) {
			continue
		}
		s, ok := h.threadStr[h.roots[k]]
		if !ok {
			continue
		}
		// A String's first reference is its value array (JDK 9+: byte[];
		// before: char[]).
		if r := h.Refs(s); len(r) > 0 {
			id := h.ids.at(r[0])
			want[id] = append(want[id], h.rootAux[k][0])
		}
	}
	if len(want) == 0 {
		return nil
	}
	names := map[uint32]string{}
	err := scanArrays(bufio.NewReaderSize(io.NewSectionReader(src, 0, 1<<62), 1<<20), h.IDSize, want, func(id uint64, t Type, data []byte) {
		cls := "byte[]"
		if t == TypeChar {
			cls = "char[]"
		}
		for _, serial := range want[id] {
			names[serial] = decodeString(data, cls)
		}
	})
	if err != nil {
		return fmt.Errorf("hprof: reading thread names: %w", err)
	}
	h.threadNames = names
	return nil
}

// scanArrays walks a dump's records and calls found with the contents (at
// most 400 bytes) of each primitive array whose id is in want, until it has
// seen them all.
func scanArrays(r *bufio.Reader, idSize int, want map[uint64][]uint32, found func(id uint64, t Type, data []byte)) error {
	if _, err := r.ReadBytes(0); err != nil {
		return err
	}
	if _, err := r.Discard(12); err != nil {
		return err
	}
	left := len(want)
	var hdr [9]byte
	buf := make([]byte, 64)
	read := func(n int) ([]byte, error) {
		if n > len(buf) {
			buf = make([]byte, n)
		}
		_, err := io.ReadFull(r, buf[:n])
		return buf[:n], err
	}
	id := func(b []byte) uint64 { return idAt(b, idSize) }
	for left > 0 {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		n := int64(binary.BigEndian.Uint32(hdr[5:]))
		if hdr[0] != tagHeapDump && hdr[0] != tagHeapDumpSeg {
			if _, err := r.Discard(int(n)); err != nil {
				return err
			}
			continue
		}
		for n > 0 && left > 0 {
			b, err := read(1)
			if err != nil {
				return err
			}
			sub := b[0]
			used := int64(1)
			skip := rootBody(sub, idSize)
			switch {
			case skip > 0:
			case sub == subHeapDumpInfo:
				skip = 4 + idSize
			case sub == subInstanceDump:
				b, err := read(2*idSize + 8)
				if err != nil {
					return err
				}
				used += int64(len(b))
				skip = int(binary.BigEndian.Uint32(b[2*idSize+4:]))
			case sub == subObjArrayDump:
				b, err := read(2*idSize + 8)
				if err != nil {
					return err
				}
				used += int64(len(b))
				skip = int(binary.BigEndian.Uint32(b[idSize+4:])) * idSize
			case sub == subPrimArrayDump, sub == subPrimArrayNoDat:
				b, err := read(idSize + 9)
				if err != nil {
					return err
				}
				used += int64(len(b))
				oid, cnt, t := id(b), int(binary.BigEndian.Uint32(b[idSize+4:])), Type(b[idSize+8])
				if !t.valid() || t == TypeObject {
					return fmt.Errorf("primitive array of type %d", t)
				}
				if sub == subPrimArrayNoDat {
					break
				}
				skip = cnt * int(typeSize[t])
				if _, ok := want[oid]; ok && (t == TypeByte || t == TypeChar) {
					data, err := read(min(skip, 400))
					if err != nil {
						return err
					}
					found(oid, t, bytes.Clone(data))
					used += int64(len(data))
					skip -= len(data)
					left--
				}
			case sub == subClassDump:
				b, err := read(7*idSize + 8 + 2)
				if err != nil {
					return err
				}
				used += int64(len(b))
				// Constant pool, statics, fields.
				for part, cnt := 0, int(binary.BigEndian.Uint16(b[7*idSize+8:])); part < 3; part++ {
					for range cnt {
						var head int
						switch part {
						case 0:
							head = 3 // u2 index, u1 type
						case 1:
							head = idSize + 1
						default:
							head = idSize + 1
						}
						e, err := read(head)
						if err != nil {
							return err
						}
						used += int64(head)
						if part < 2 {
							t := Type(e[head-1])
							if !t.valid() {
								return fmt.Errorf("class dump value of type %d", t)
							}
							sz := t.size(idSize)
							if _, err := r.Discard(sz); err != nil {
								return err
							}
							used += int64(sz)
						}
					}
					if part < 2 {
						c, err := read(2)
						if err != nil {
							return err
						}
						used += 2
						cnt = int(binary.BigEndian.Uint16(c))
					}
				}
			default:
				return fmt.Errorf("unknown heap dump sub-record 0x%02X", sub)
			}
			if skip > 0 {
				if _, err := r.Discard(skip); err != nil {
					return err
				}
				used += int64(skip)
			}
			n -= used
		}
		if n > 0 {
			if _, err := r.Discard(int(n)); err != nil {
				return err
			}
		}
	}
	return nil
}

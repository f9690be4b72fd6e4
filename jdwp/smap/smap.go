package smap

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// SMAP is a decoded source map.
type SMAP struct {
	// OutputFile is the name of the file the map is for (the class's
	// SourceFile); DefaultStratum the stratum a debugger shows unless told
	// otherwise ("Kotlin").
	OutputFile, DefaultStratum string
	// Strata in the order the map gives them.
	Strata []*Stratum
}

// Stratum is one *S section: a view of the class's lines as lines of other
// sources.
type Stratum struct {
	Name  string
	Files []File
	Lines []LineInfo
}

// File is one entry of a *F section.
type File struct {
	// ID is the number line sections refer to it by.
	ID int
	// Name is the source's name ("Main.kt"); Path, when given (a "+" entry),
	// its path relative to a source root: for Kotlin, the internal name of
	// the class the file compiled into ("app/MainKt"), for JSR-45's own
	// users a path ("app/Main.kt").
	Name, Path string
}

// LineInfo is one entry of a *L section: input lines InputStart …
// InputStart+Repeat-1 of file FileID became, each, Increment output lines
// from OutputStart + i*Increment (Increment 0: the single line OutputStart).
type LineInfo struct {
	InputStart, FileID, Repeat, OutputStart, Increment int
}

// Limits on a map's size: a class file's SourceDebugExtension may hold any
// bytes, and a VM sends what it holds.
const (
	maxInput = 4 << 20   // bytes of SMAP text
	maxLine  = 1<<31 - 1 // any line number or count
)

// Stratum returns the stratum named name, nil if the map has none.
func (s *SMAP) Stratum(name string) *Stratum {
	for _, st := range s.Strata {
		if st.Name == name {
			return st
		}
	}
	return nil
}

// Parse decodes SMAP text. It rejects what is not a source map with an error
// naming the line at fault; embedded maps (*O, *C) are not supported and are
// refused.
func Parse(text string) (*SMAP, error) {
	if len(text) > maxInput {
		return nil, fmt.Errorf("SMAP of %d bytes is larger than the %d bytes accepted", len(text), maxInput)
	}
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], "\r")
	}
	if len(lines) < 3 || strings.TrimSpace(lines[0]) != "SMAP" {
		return nil, errors.New("SMAP: the text does not start with the line SMAP")
	}
	s := &SMAP{OutputFile: strings.TrimSpace(lines[1]), DefaultStratum: strings.TrimSpace(lines[2])}
	if s.DefaultStratum == "" {
		return nil, errors.New("SMAP line 3: no default stratum")
	}
	var cur *Stratum
	section := ""
	lastFile := 0
	ended := false
	for i := 3; i < len(lines) && !ended; i++ {
		l := lines[i]
		n := i + 1
		if strings.HasPrefix(l, "*") {
			tag := strings.TrimSpace(l)
			switch {
			case tag == "*E":
				ended = true
			case strings.HasPrefix(tag, "*S"):
				name := strings.TrimSpace(tag[2:])
				if name == "" {
					return nil, fmt.Errorf("SMAP line %d: *S without a stratum name", n)
				}
				cur = &Stratum{Name: name}
				s.Strata = append(s.Strata, cur)
				section, lastFile = "", 0
			case tag == "*F", tag == "*L":
				if cur == nil {
					return nil, fmt.Errorf("SMAP line %d: %s before any *S", n, tag)
				}
				section = tag
			case tag == "*V":
				section = tag // vendor information: skipped to the next section
			case strings.HasPrefix(tag, "*O"), strings.HasPrefix(tag, "*C"):
				return nil, fmt.Errorf("SMAP line %d: embedded source maps (%s) are not supported", n, tag)
			default:
				// JSR-45: unknown sections are ignored up to the next one.
				section = "?"
			}
			continue
		}
		switch section {
		case "*F":
			f, extra, err := parseFile(l)
			if err != nil {
				if strings.TrimSpace(l) == "" {
					continue
				}
				return nil, fmt.Errorf("SMAP line %d: %w", n, err)
			}
			if extra {
				if i+1 >= len(lines) {
					return nil, fmt.Errorf("SMAP line %d: a + file entry without its path line", n)
				}
				i++
				f.Path = strings.TrimSpace(lines[i])
			}
			cur.Files = append(cur.Files, f)
		case "*L":
			if strings.TrimSpace(l) == "" {
				continue
			}
			li, err := parseLine(l, lastFile)
			if err != nil {
				return nil, fmt.Errorf("SMAP line %d: %w", n, err)
			}
			lastFile = li.FileID
			cur.Lines = append(cur.Lines, li)
		}
	}
	if !ended {
		return nil, errors.New("SMAP: no *E end line")
	}
	if len(s.Strata) == 0 {
		return nil, errors.New("SMAP: no stratum")
	}
	return s, nil
}

// parseFile reads "+ 1 Main.kt" (extra: a path line follows) or "1 Main.kt".
func parseFile(l string) (File, bool, error) {
	t := strings.TrimSpace(l)
	extra := strings.HasPrefix(t, "+")
	if extra {
		t = strings.TrimSpace(t[1:])
	}
	idText, name, ok := strings.Cut(t, " ")
	if !ok {
		return File{}, false, fmt.Errorf("file entry %q: want an id and a name", l)
	}
	id, err := number(idText)
	if err != nil {
		return File{}, false, fmt.Errorf("file entry %q: %w", l, err)
	}
	return File{ID: id, Name: strings.TrimSpace(name)}, extra, nil
}

// parseLine reads InputStartLine[#LineFileID][,RepeatCount]:OutputStartLine[,OutputLineIncrement].
func parseLine(l string, lastFile int) (LineInfo, error) {
	in, out, ok := strings.Cut(strings.TrimSpace(l), ":")
	if !ok {
		return LineInfo{}, fmt.Errorf("line entry %q: no ':'", l)
	}
	li := LineInfo{FileID: lastFile, Repeat: 1, Increment: 1}
	var err error
	if head, rep, ok := strings.Cut(in, ","); ok {
		if li.Repeat, err = number(rep); err != nil {
			return LineInfo{}, fmt.Errorf("line entry %q: repeat count: %w", l, err)
		}
		in = head
	}
	inLine, file, hasFile := strings.Cut(in, "#")
	if li.InputStart, err = number(inLine); err != nil {
		return LineInfo{}, fmt.Errorf("line entry %q: input line: %w", l, err)
	}
	if hasFile {
		if li.FileID, err = number(file); err != nil {
			return LineInfo{}, fmt.Errorf("line entry %q: file id: %w", l, err)
		}
	}
	outLine, inc, hasInc := strings.Cut(out, ",")
	if li.OutputStart, err = number(outLine); err != nil {
		return LineInfo{}, fmt.Errorf("line entry %q: output line: %w", l, err)
	}
	if hasInc {
		if li.Increment, err = number(inc); err != nil {
			return LineInfo{}, fmt.Errorf("line entry %q: output increment: %w", l, err)
		}
	}
	return li, nil
}

func number(s string) (int, error) {
	v, err := strconv.ParseUint(strings.TrimSpace(s), 10, 32)
	if err != nil || v > maxLine {
		return 0, fmt.Errorf("%q is not a line number", s)
	}
	return int(v), nil
}

// File returns the file with id, nil if the stratum has none.
func (st *Stratum) File(id int) *File {
	for i := range st.Files {
		if st.Files[i].ID == id {
			return &st.Files[i]
		}
	}
	return nil
}

// Map returns the source file and line that JVM (output) line out stands
// for in the stratum; ok is false when no line section covers it.
func (st *Stratum) Map(out int) (file *File, line int, ok bool) {
	for _, li := range st.Lines {
		if in, hit := li.input(out); hit {
			if f := st.File(li.FileID); f != nil {
				return f, in, true
			}
		}
	}
	return nil, 0, false
}

// input returns the input line that output line out comes from, if the
// entry covers it.
func (li LineInfo) input(out int) (int, bool) {
	o, start := int64(out), int64(li.OutputStart)
	if o < start || li.Repeat == 0 {
		return 0, false
	}
	if li.Increment == 0 {
		if o == start {
			return li.InputStart, true
		}
		return 0, false
	}
	i := (o - start) / int64(li.Increment)
	if i >= int64(li.Repeat) {
		return 0, false
	}
	return li.InputStart + int(i), true
}

// OutputLines returns the JVM (output) lines that source line in of the file
// match accepts became, in the order of the line sections, each once.
func (st *Stratum) OutputLines(match func(File) bool, in int) []int {
	ids := map[int]bool{}
	for _, f := range st.Files {
		if match(f) {
			ids[f.ID] = true
		}
	}
	if len(ids) == 0 {
		return nil
	}
	var outs []int
	seen := map[int]bool{}
	for _, li := range st.Lines {
		if !ids[li.FileID] || in < li.InputStart || int64(in) >= int64(li.InputStart)+int64(li.Repeat) {
			continue
		}
		first := int64(li.OutputStart) + int64(in-li.InputStart)*int64(li.Increment)
		n := int64(li.Increment)
		if n == 0 {
			n = 1
		}
		for o := first; o < first+n && o <= maxLine && len(outs) < 1<<16; o++ {
			if !seen[int(o)] {
				seen[int(o)] = true
				outs = append(outs, int(o))
			}
		}
	}
	return outs
}

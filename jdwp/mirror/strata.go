package mirror

import (
	"context"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/smap"
)

// SourceDebugExtension returns a reference type's SourceDebugExtension
// attribute (a JSR-45 source map as text), "" when it has none. It asks the
// VM only when the VM says it can answer (canGetSourceDebugExtension); a VM
// that cannot gives "". The answer is cached per class until it is
// redefined or unloaded.
func (m *VM) SourceDebugExtension(ctx context.Context, t jdwp.ReferenceTypeID) (string, error) {
	return m.sdes.Get(t, func() (string, error) {
		caps, err := m.conn.Capabilities(ctx)
		if err != nil {
			return "", err
		}
		if !caps.CanGetSourceDebugExtension {
			return "", nil
		}
		text, err := m.conn.SourceDebugExtension(ctx, t)
		if Absent(err) {
			return "", nil
		}
		return text, err
	})
}

// SourceMap returns a reference type's JSR-45 source map (its
// SourceDebugExtension, decoded), nil when it has none. A map that does not
// decode gives nil (and is logged): the class keeps its own lines. The
// answer is cached per class until it is redefined or unloaded.
func (m *VM) SourceMap(ctx context.Context, t jdwp.ReferenceTypeID) (*smap.SMAP, error) {
	return m.smaps.Get(t, func() (*smap.SMAP, error) {
		text, err := m.SourceDebugExtension(ctx, t)
		if err != nil || text == "" {
			return nil, err
		}
		s, err := smap.Parse(text)
		if err != nil {
			m.cfg.Log.Warn().Err(err).Uint64("type", uint64(t)).Msg("a class's SourceDebugExtension is not a source map: its own lines are used")
			return nil, nil
		}
		return s, nil
	})
}

// StratumLine is a JVM line of a class as a stratum of its source map sees
// it.
type StratumLine struct {
	// File is the source the line belongs to (Name "Main.kt", Path
	// "app/MainKt" as the map gives it).
	File smap.File
	// Line is the line in File.
	Line int
}

// MapLine maps JVM line line of class t through the stratum named stratum
// ("" for the map's default stratum). ok is false when the class has no
// source map, no such stratum, or no line section covering the line: the
// JVM line stands for itself.
func (m *VM) MapLine(ctx context.Context, t jdwp.ReferenceTypeID, stratum string, line int) (StratumLine, bool, error) {
	s, err := m.SourceMap(ctx, t)
	if err != nil || s == nil {
		return StratumLine{}, false, err
	}
	if stratum == "" {
		stratum = s.DefaultStratum
	}
	st := s.Stratum(stratum)
	if st == nil {
		return StratumLine{}, false, nil
	}
	f, in, ok := st.Map(line)
	if !ok {
		return StratumLine{}, false, nil
	}
	return StratumLine{File: *f, Line: in}, true, nil
}

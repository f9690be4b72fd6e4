package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
)

// traceKinds are the names --trace accepts. A component name (jdwp, ddm, bridge, dap)
// enables all of its kinds. The jdwp kinds follow the Harmony agent's CMD/PACK/DATA/EVENT.
var traceKinds = map[string]string{
	"jdwp.cmd":     "each command sent and its reply, with the round-trip time",
	"jdwp.packet":  "the header of every packet read or written",
	"jdwp.data":    "a hex dump of every packet's data",
	"jdwp.event":   "every decoded event",
	"ddm.chunk":    "every DDM chunk sent or received",
	"ddm.data":     "a hex dump of every DDM chunk",
	"bridge.proxy": "debugger pass-through packets and id remapping",
	"bridge.scan":  "VM discovery probes",
	"dap.msg":      "every DAP message",
	"rpc.msg":      "every JSON-RPC message",
}

func traceKindNames() []string {
	var names []string
	for k := range traceKinds {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// tracing is the set of trace kinds --trace enabled; wiring code passes it to
// components. Like the root logger it is set whole by setup (atomically: the
// tests run commands in parallel in one process).
var tracing atomic.Pointer[map[string]bool]

// traced reports whether kind (e.g. "jdwp.cmd") is enabled.
func traced(kind string) bool {
	if t := tracing.Load(); t != nil {
		return (*t)[kind]
	}
	return false
}

// root is the root logger; components derive theirs with component(name).
var root atomic.Pointer[zerolog.Logger]

func rootLogger() zerolog.Logger {
	if l := root.Load(); l != nil {
		return *l
	}
	return zerolog.New(io.Discard)
}

func component(name string) zerolog.Logger {
	return rootLogger().With().Str("component", name).Logger()
}

func init() { zerolog.TimeFieldFormat = time.RFC3339Nano }

func tracingSet(t map[string]bool) { tracing.Store(&t) }

func (lf *logFlags) setup(stderr io.Writer) error {
	tracing := map[string]bool{}
	if lf.trace != "" {
		for _, k := range strings.Split(lf.trace, ",") {
			k = strings.TrimSpace(strings.ToLower(k))
			if k == "" {
				continue
			}
			matched := false
			for name := range traceKinds {
				if k == "all" || name == k || strings.HasPrefix(name, k+".") {
					tracing[name] = true
					matched = true
				}
			}
			if !matched {
				return fmt.Errorf("--trace: unknown kind %q (known: all, %s)", k, strings.Join(traceKindNames(), ", "))
			}
		}
	}
	level, err := zerolog.ParseLevel(strings.ToLower(lf.level))
	if err != nil || lf.level == "" {
		return fmt.Errorf("--log-level: unknown level %q (trace, debug, info, warn, error, disabled)", lf.level)
	}
	if len(tracing) > 0 && level > zerolog.TraceLevel {
		// Asking for a trace kind implies seeing it.
		level = zerolog.TraceLevel
	}
	var w io.Writer = stderr
	switch lf.format {
	case "json":
	case "console":
		noColor := true
		if f, ok := stderr.(*os.File); ok && f == os.Stderr {
			if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
				noColor = false
			}
		}
		w = zerolog.ConsoleWriter{Out: stderr, TimeFormat: "15:04:05.000", NoColor: noColor}
	default:
		return fmt.Errorf("--log-format: unknown format %q (console, json)", lf.format)
	}
	l := zerolog.New(w).Level(level).With().Timestamp().Logger()
	root.Store(&l)
	tracingSet(tracing)
	return nil
}

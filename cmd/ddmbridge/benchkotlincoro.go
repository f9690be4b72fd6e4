package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	godap "github.com/google/go-dap"

	"github.com/ddmbridge/ddmbridge/dap"
	"github.com/ddmbridge/ddmbridge/dap/ext"
	"github.com/ddmbridge/ddmbridge/jdwp/kotlinrun"
)

// The coroutine figures of bench kotlin (issue 37): the coroutines request
// listing N coroutines from kotlinx-coroutines' debug probes in one stop,
// and what a stop in a suspend function adds to stop→variables beside the
// same stop in a plain function, in one program.

// kotlinCoroutines is what the coroutine part of bench kotlin measured.
type kotlinCoroutines struct {
	// Launched is how many coroutines the program launched (each suspended
	// in an await); the list's figures (its fields in the JSON) are those
	// of the run with the debug probes; ListRuns how many lists ListMs and
	// NoFramesMs are the mean of.
	Launched int `json:"launched"`
	kotlinCoroutineList
	ListRuns int `json:"listRuns"`
	// SuspendMs is stop→variables (stackTrace, scopes, the top frame's
	// locals) at a stop in a suspend function three deep after it resumed
	// (its async stack read), PlainMs the same at a stop in a plain
	// function three calls deep, each the mean of StopRuns stops taken
	// alternately after one warming round; AsyncFrames the async frames
	// shown under the suspend stop (the continuations that will resume).
	SuspendMs   float64 `json:"suspendMs"`
	PlainMs     float64 `json:"plainMs"`
	StopRuns    int     `json:"stopRuns"`
	AsyncFrames int     `json:"asyncFrames"`
	// WithoutProbes is the same list in a run without the debug probes.
	WithoutProbes *kotlinCoroutineList `json:"withoutProbes,omitempty"`
}

// kotlinCoroutineList is one list's figures: Listed is how many the
// coroutines request listed (the launched ones and runBlocking's own),
// WithFrames how many of them came with a stack, Source the list's source
// ("DebugProbes"); FirstMs the stop's first list (no object's type known
// yet), ListMs the mean of the lists after it, NoFramesMs the mean of as
// many lists without frames ("frames": 0).
type kotlinCoroutineList struct {
	Listed     int     `json:"listed"`
	WithFrames int     `json:"withFrames"`
	Source     string  `json:"source"`
	FirstMs    float64 `json:"firstMs"`
	ListMs     float64 `json:"listMs"`
	NoFramesMs float64 `json:"noFramesMs"`
}

// ktCoroFile is the coroutine program's source; its lines with these
// markers get the breakpoints.
const (
	ktCoroFile    = "benchco/Coroutines.kt"
	ktCoroSuspend = "// @suspendStop"
	ktCoroPlain   = "// @plainStop"
	ktCoroReady   = "// @listStop"
)

// ktCoroSource is the coroutine program: with "chain R" it runs R rounds of
// a three-deep suspend chain (resumed on Dispatchers.Default after a
// yield) and of the same chain of plain functions; with "many N" it
// launches N coroutines that suspend awaiting a gate, then calls ready.
const ktCoroSource = `package benchco

import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineName
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.yield

suspend fun chainA(n: Int): Int {
    val tag = "a$n"
    val r = chainB(n + 1)
    return r + tag.length
}

suspend fun chainB(n: Int): Int {
    val half = n * 5
    val r = chainC(n * 2)
    return r + half
}

suspend fun chainC(n: Int): Int {
    val before = n + 100
    yield()
    val after = before + 1 ` + ktCoroSuspend + `
    return after
}

fun plainA(n: Int): Int {
    val tag = "a$n"
    return plainB(n + 1) + tag.length
}

fun plainB(n: Int): Int {
    val half = n * 5
    return plainC(n * 2) + half
}

fun plainC(n: Int): Int {
    val before = n + 100
    val after = before + 1 ` + ktCoroPlain + `
    return after
}

fun ready(n: Int) {
    println("launched $n") ` + ktCoroReady + `
}

fun main(args: Array<String>) {
    val n = args[1].toInt()
    if (args[0] == "chain") {
        repeat(n) {
            runBlocking(Dispatchers.Default + CoroutineName("chain")) { chainA(1) }
            plainA(1)
        }
        return
    }
    val gate = CompletableDeferred<Unit>()
    runBlocking {
        repeat(n) { i ->
            launch(CoroutineName("worker-$i")) {
                gate.await()
            }
        }
        yield()
        ready(n)
        gate.complete(Unit)
    }
}
`

// ktCoroLine is the line of ktCoroSource holding marker.
func ktCoroLine(marker string) int {
	for i, l := range strings.Split(ktCoroSource, "\n") {
		if strings.HasSuffix(l, marker) {
			return i + 1
		}
	}
	panic("bench kotlin: no line marked " + marker)
}

// benchKotlinCoroutines compiles the coroutine program and measures, in
// two runs of it: the list of n coroutines (with the debug probes as a
// -javaagent), runs times, and runs stops in each of the suspend and the
// plain function.
func benchKotlinCoroutines(ctx context.Context, n, runs int) (*kotlinCoroutines, error) {
	compiled, err := kotlinrun.Compile(ctx, map[string][]byte{ktCoroFile: []byte(ktCoroSource)}, kotlinrun.Indy)
	if err != nil {
		return nil, err
	}
	peers, err := kotlinrun.FetchPeers(ctx)
	if err != nil {
		return nil, err
	}
	out := &kotlinCoroutines{Launched: n, ListRuns: runs, StopRuns: runs}
	src := filepath.Join(compiled.Sources, filepath.FromSlash(ktCoroFile))
	launch := func(args, vmArgs []string, lines ...int) (*linkSession, *godap.StoppedEvent, error) {
		c, err := startLinkSession(ctx, dap.NewServer(dapConfig()))
		if err != nil {
			return nil, nil, err
		}
		ext.Register(c.codec)
		stop, err := func() (*godap.StoppedEvent, error) {
			if _, err := c.request(&godap.InitializeRequest{Request: c.req("initialize"), Arguments: godap.InitializeRequestArguments{
				AdapterID: "ddmbridge", LinesStartAt1: true, ColumnsStartAt1: true, SupportsVariableType: true}}); err != nil {
				return nil, err
			}
			raw, _ := json.Marshal(map[string]any{"mainClass": "benchco.CoroutinesKt", "classPaths": compiled.ClassPath,
				"sourcePaths": []string{compiled.Sources}, "args": args, "vmArgs": vmArgs})
			if _, err := c.request(&godap.LaunchRequest{Request: c.req("launch"), Arguments: raw}); err != nil {
				return nil, err
			}
			bps, err := c.setBreakpoints(src, lines...)
			if err != nil {
				return nil, err
			}
			for _, bp := range bps {
				if !bp.Verified {
					return nil, fmt.Errorf("the breakpoint at %s:%d is not verified: %s", ktCoroFile, bp.Line, bp.Message)
				}
			}
			if _, err := c.request(&godap.ConfigurationDoneRequest{Request: c.req("configurationDone")}); err != nil {
				return nil, err
			}
			return c.awaitStopped(ctx)
		}()
		if err != nil {
			c.close()
			return nil, nil, err
		}
		return c, stop, nil
	}
	end := func(c *linkSession) {
		_, _ = c.request(&godap.DisconnectRequest{Request: c.req("disconnect"), Arguments: &godap.DisconnectArguments{TerminateDebuggee: true}})
		c.close()
	}

	// The list, from the debug probes (kotlinx-coroutines-core as an agent),
	// then without them (the stopped threads' coroutines and their jobs, or
	// the VM's coroutine objects: what an app on ART gets).
	measureList := func(vmArgs []string) (*kotlinCoroutineList, error) {
		c, _, err := launch([]string{"many", strconv.Itoa(n)}, vmArgs, ktCoroLine(ktCoroReady))
		if err != nil {
			return nil, err
		}
		defer end(c)
		list := func(frames *int) (*ext.CoroutinesBody, time.Duration, error) {
			start := time.Now()
			r, err := c.request(&ext.CoroutinesRequest{Request: c.req("coroutines"), Arguments: ext.CoroutinesArguments{Count: n + 16, Frames: frames}})
			d := time.Since(start)
			if err != nil {
				return nil, d, err
			}
			body := &r.(*ext.CoroutinesResponse).Body
			if body.Total < n || len(body.Coroutines) < n {
				return nil, d, fmt.Errorf("the coroutines request listed %d of %d coroutines, want %d or more (%s: %s)", len(body.Coroutines), body.Total, n, body.Source, body.Note)
			}
			return body, d, nil
		}
		body, first, err := list(nil)
		if err != nil {
			return nil, err
		}
		l := &kotlinCoroutineList{FirstMs: ms(first), Listed: body.Total, Source: body.Source}
		for _, co := range body.Coroutines {
			if len(co.Frames) > 0 {
				l.WithFrames++
			}
		}
		var all, none time.Duration
		zero := 0
		for range runs {
			_, d, lerr := list(nil)
			all += d
			_, d0, nerr := list(&zero)
			none += d0
			if err := errors.Join(lerr, nerr); err != nil {
				return nil, err
			}
		}
		l.ListMs, l.NoFramesMs = ms(all)/float64(runs), ms(none)/float64(runs)
		return l, nil
	}
	l, err := measureList([]string{"-javaagent:" + peers.Coroutines})
	if err != nil {
		return nil, fmt.Errorf("the coroutine list: %w", err)
	}
	out.kotlinCoroutineList = *l
	if out.WithoutProbes, err = measureList(nil); err != nil {
		return nil, fmt.Errorf("the coroutine list without the debug probes: %w", err)
	}

	// stop→variables in chainC (resumed: its async stack read) against
	// plainC, alternately; the first round of each warms the caches.
	c, stop, err := launch([]string{"chain", strconv.Itoa(runs + 1)}, nil, ktCoroLine(ktCoroSuspend), ktCoroLine(ktCoroPlain))
	if err != nil {
		return nil, fmt.Errorf("the stop in a suspend function: %w", err)
	}
	defer end(c)
	toVariables := func(thread int) (time.Duration, int, error) {
		start := time.Now()
		r, err := c.request(&godap.StackTraceRequest{Request: c.req("stackTrace"), Arguments: godap.StackTraceArguments{ThreadId: thread, Levels: 20}})
		if err != nil {
			return 0, 0, err
		}
		frames := r.(*godap.StackTraceResponse).Body.StackFrames
		if len(frames) == 0 {
			return 0, 0, errors.New("no frames")
		}
		r, err = c.request(&godap.ScopesRequest{Request: c.req("scopes"), Arguments: godap.ScopesArguments{FrameId: frames[0].Id}})
		if err != nil {
			return 0, 0, err
		}
		scopes := r.(*godap.ScopesResponse).Body.Scopes
		if len(scopes) == 0 {
			return 0, 0, errors.New("no scopes")
		}
		r, err = c.request(&godap.VariablesRequest{Request: c.req("variables"), Arguments: godap.VariablesArguments{VariablesReference: scopes[0].VariablesReference}})
		if err != nil {
			return 0, 0, err
		}
		if len(r.(*godap.VariablesResponse).Body.Variables) == 0 {
			return 0, 0, errors.New("no locals")
		}
		d := time.Since(start)
		async := -1 // frames after the async stack's label
		for _, f := range frames {
			if async >= 0 {
				async++
			} else if f.PresentationHint == "label" && f.Source == nil {
				async = 0
			}
		}
		return d, async, nil
	}
	next := func() (int, error) {
		if _, err := c.request(&godap.ContinueRequest{Request: c.req("continue"), Arguments: godap.ContinueArguments{ThreadId: stop.Body.ThreadId}}); err != nil {
			return 0, err
		}
		stop, err = c.awaitStopped(ctx)
		if err != nil {
			return 0, err
		}
		return stop.Body.ThreadId, nil
	}
	var suspend, plain time.Duration
	for i := range runs + 1 {
		th := stop.Body.ThreadId
		if i > 0 {
			if th, err = next(); err != nil {
				return nil, err
			}
		}
		d, async, err := toVariables(th)
		if err != nil {
			return nil, fmt.Errorf("the stop in chainC: %w", err)
		}
		if async <= 0 {
			return nil, fmt.Errorf("the stop in chainC (round %d) shows no async stack", i)
		}
		out.AsyncFrames = async
		if th, err = next(); err != nil {
			return nil, err
		}
		dp, async, err := toVariables(th)
		if err != nil {
			return nil, fmt.Errorf("the stop in plainC: %w", err)
		}
		if async >= 0 {
			return nil, fmt.Errorf("the stop in plainC (round %d) shows an async stack", i)
		}
		if i > 0 {
			suspend += d
			plain += dp
		}
	}
	out.SuspendMs, out.PlainMs = ms(suspend)/float64(runs), ms(plain)/float64(runs)
	return out, nil
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// printKotlinCoroutines prints the coroutine figures under bench kotlin's
// table.
func printKotlinCoroutines(w io.Writer, k *kotlinCoroutines) {
	if k == nil {
		return
	}
	fmt.Fprintf(w, "coroutine list (%s): %d coroutines listed of %d launched, %d with a stack; first list %.1f ms, then %.1f ms a list, %.1f ms without frames (%d runs)\n",
		k.Source, k.Listed, k.Launched, k.WithFrames, k.FirstMs, k.ListMs, k.NoFramesMs, k.ListRuns)
	if l := k.WithoutProbes; l != nil {
		fmt.Fprintf(w, "coroutine list without DebugProbes (%s): %d coroutines listed of %d launched, %d with a stack; first list %.1f ms, then %.1f ms a list, %.1f ms without frames (%d runs)\n",
			l.Source, l.Listed, k.Launched, l.WithFrames, l.FirstMs, l.ListMs, l.NoFramesMs, k.ListRuns)
	}
	ratio := 0.0
	if k.PlainMs > 0 {
		ratio = k.SuspendMs / k.PlainMs
	}
	fmt.Fprintf(w, "stop→variables in a suspend function (an async stack of %d): %.1f ms, in a plain function three calls deep: %.1f ms; added %.1f ms (%.2f×, %d stops each)\n",
		k.AsyncFrames, k.SuspendMs, k.PlainMs, k.SuspendMs-k.PlainMs, ratio, k.StopRuns)
}

package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"time"

	godap "github.com/google/go-dap"

	"github.com/ddmbridge/ddmbridge/dap"
	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmrun"
	"github.com/ddmbridge/ddmbridge/jdwp/kotlinrun"
	"github.com/ddmbridge/ddmbridge/jdwp/linkproxy"
	"github.com/ddmbridge/ddmbridge/jdwp/smap"
)

const benchKotlinUsage = "ddmbridge bench kotlin [--classes N] [--runs N] [--coroutines N] [--json] [--timeout D]"

// The actions of bench kotlin, in the order they are printed.
const (
	ktActFirstFile = "setBreakpoints→verified, first .kt file"
	ktActOtherFile = "setBreakpoints→verified, another .kt file"
	ktActSameFile  = "setBreakpoints→verified, same file again"
	ktActInline    = "setBreakpoints→verified, inline body"
	ktActSDE       = "SourceDebugExtension, every class (JDWP)"
)

// kotlinBench is what bench kotlin measured.
type kotlinBench struct {
	// Classes are the loaded classes of the generated program; WithSMAP those
	// of them with a source map (a SourceDebugExtension); InlinedInto those
	// whose map names the file of the inline function.
	Classes     int `json:"classes"`
	WithSMAP    int `json:"withSMAP"`
	InlinedInto int `json:"inlinedInto"`
	// SMAPBytes is the maps' total size; ParseNsPerClass the mean time of
	// smap.Parse per map (over ParseRounds rounds of every map).
	SMAPBytes       int     `json:"smapBytes"`
	ParseNsPerClass float64 `json:"parseNsPerClass"`
	ParseRounds     int     `json:"parseRounds"`
	// Compile is how long kotlinc took (0 when the compile was cached).
	CompileSeconds float64 `json:"compileSeconds"`
	// Actions are the DAP requests measured through a zero-delay JDWP
	// proxy: milliseconds, JDWP commands and sequential round trips.
	Actions []linkAction `json:"actions"`
	// Coroutines are the coroutine figures (a program of its own).
	Coroutines *kotlinCoroutines `json:"coroutines,omitempty"`
}

// runBenchKotlin measures what Kotlin costs the adapter in a large program:
// a generated Kotlin program of N classes (every class inlining one inline
// function, so every class has a source map) compiled once by the real Kotlin
// compiler (cached by content), run from a jar; setBreakpoints on its .kt
// files until verified, and the parse of every class's source map.
func runBenchKotlin(ctx context.Context, fs *flag.FlagSet, args []string) error {
	classes := fs.Int("classes", 2000, "classes of the generated Kotlin program (rounded up to whole files of 10)")
	runs := fs.Int("runs", 3, "runs of each warm action (another file, the same file, the inline body, the coroutine list, each stop)")
	coroutines := fs.Int("coroutines", 1000, "coroutines the coroutine list's program launches")
	asJSON := fs.Bool("json", false, "print one JSON object instead of the table")
	timeout := fs.Duration("timeout", 30*time.Minute, "bound on the whole benchmark, the first compile included (kotlinc on 2,000 classes takes minutes)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: "+benchKotlinUsage)
		fmt.Fprintln(fs.Output(), "\nGenerates a Kotlin program of N classes, compiles it once with the Kotlin 2 compiler (fetched with mvn into\n~/.cache/ddmbridge-kotlin the first time; the compile is cached by content), runs it from a jar and prints\nsetBreakpoints→verified on its .kt files (ms, JDWP commands, sequential round trips) and the SMAP parse per class;\nthen, in a small coroutine program, the coroutines request listing N coroutines (kotlinx-coroutines' debug probes)\nand stop→variables in a suspend function beside the same in a plain function.")
		fs.PrintDefaults()
	}
	if err := parse(ctx, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
	}
	if *classes < 10 || *runs < 1 || *coroutines < 1 {
		return fmt.Errorf("%w: --classes must be 10 or more, --runs and --coroutines 1 or more", errUsage)
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	kotlinrun.CompileTimeout = *timeout // the first compile of 2,000 classes may take most of it on a busy machine
	b, err := benchKotlin(ctx, *classes, *runs, *coroutines)
	if err != nil {
		return err
	}
	printKotlinBench(stdout(ctx), b, *asJSON)
	return nil
}

// ktPerFile is how many classes one generated file makes: nine classes and
// the file's facade.
const ktPerFile = 10

// kotlinBenchProgram is the generated program: its sources (paths under the
// source root → contents) and the files the actions set breakpoints in.
type kotlinBenchProgram struct {
	files map[string][]byte
	nfile int
	// inline is Inline.kt, inlineLine the line of the inline function's body.
	inline     string
	inlineLine int
}

// ktBodyLine is the line of each generated class's f() body that the
// breakpoints go on (the first statement of the first class of a file).
const ktBodyLine = 7

// ktFile is the source path of generated file i.
func ktFile(i int) string { return fmt.Sprintf("bench/p%d/F%d.kt", i%20, i) }

func genKotlinBench(classes int) kotlinBenchProgram {
	n := (classes + ktPerFile - 1) / ktPerFile
	p := kotlinBenchProgram{files: map[string][]byte{}, nfile: n, inline: "bench/Inline.kt", inlineLine: 5}
	p.files[p.inline] = []byte(`package bench

// The inline function every generated class inlines: each gets a source map.
inline fun twiceK(block: () -> Int): Int {
    val first = block()
    return first + block()
}
`)
	var main strings.Builder
	main.WriteString("package bench\n\nfun main() {\n    var s = 0\n")
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "package bench.p%d\n\nimport bench.twiceK\n\n", i%20)
		for k := range ktPerFile - 1 {
			// Line ktBodyLine is the first class's "val a" line.
			fmt.Fprintf(&b, "class C%dx%d(val x: Int) {\n    fun f(): Int {\n        val a = x + %d\n        return twiceK { a * 2 }\n    }\n}\n\n", i, k, k)
		}
		fmt.Fprintf(&b, "fun touch%d(): Int {\n    var s = 0\n", i)
		for k := range ktPerFile - 1 {
			fmt.Fprintf(&b, "    s += C%dx%d(%d).f()\n", i, k, k)
		}
		b.WriteString("    return s\n}\n")
		p.files[ktFile(i)] = []byte(b.String())
		fmt.Fprintf(&main, "    s += bench.p%d.touch%d()\n", i%20, i)
	}
	main.WriteString("    println(\"LOADED $s\")\n    Thread.sleep(Long.MAX_VALUE)\n}\n")
	p.files["bench/Main.kt"] = []byte(main.String())
	return p
}

func benchKotlin(ctx context.Context, classes, runs, coroutines int) (*kotlinBench, error) {
	log := component("bench")
	prog := genKotlinBench(classes)
	if got := strings.Split(string(prog.files[ktFile(0)]), "\n")[ktBodyLine-1]; !strings.Contains(got, "val a = x") {
		return nil, fmt.Errorf("bench kotlin: line %d of the generated file is %q, not a class's first statement", ktBodyLine, got)
	}
	out := &kotlinBench{}
	log.Info().Int("files", len(prog.files)).Msg("compiling the generated Kotlin program (cached by content)")
	start := time.Now()
	compiled, err := kotlinrun.Compile(ctx, prog.files, kotlinrun.Indy)
	if err != nil {
		return nil, err
	}
	if d := time.Since(start); d > 5*time.Second { // a cached compile takes milliseconds
		out.CompileSeconds = d.Seconds()
	}
	_, classPath, err := compiled.Jar()
	if err != nil {
		return nil, err
	}
	vm, err := jvmrun.Start(ctx, jvmrun.Options{ClassPath: classPath, MainClass: "bench.MainKt", ReadyLine: "LOADED", Timeout: 5 * time.Minute})
	if err != nil {
		return nil, fmt.Errorf("start the generated Kotlin program: %w", err)
	}
	defer vm.Close()

	actions, err := kotlinBreakpoints(ctx, vm.Addr, compiled.Sources, prog, runs)
	if err != nil {
		return nil, err
	}
	out.Actions = actions
	if err := kotlinSMAPs(ctx, vm.Addr, prog, out); err != nil {
		return nil, err
	}
	vm.Close()
	if out.Coroutines, err = benchKotlinCoroutines(ctx, coroutines, runs); err != nil {
		return nil, err
	}
	return out, nil
}

// kotlinBreakpoints attaches the adapter through a zero-delay proxy (which
// counts the JDWP commands) and measures setBreakpoints until verified.
func kotlinBreakpoints(ctx context.Context, addr, sources string, prog kotlinBenchProgram, runs int) ([]linkAction, error) {
	p, err := linkproxy.Start(addr, 0)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	m := &measure{p: p, client: "direct", sums: map[string]*linkAction{}}
	c, err := startLinkSession(ctx, dap.NewServer(dapConfig()))
	if err != nil {
		return nil, err
	}
	defer c.close()
	if _, err := c.request(&godap.InitializeRequest{Request: c.req("initialize"), Arguments: godap.InitializeRequestArguments{
		AdapterID: "ddmbridge", LinesStartAt1: true, ColumnsStartAt1: true, SupportsVariableType: true}}); err != nil {
		return nil, err
	}
	raw, _ := json.Marshal(map[string]any{"hostName": "127.0.0.1", "port": portOf(p.Addr()), "sourcePaths": []string{sources}})
	if _, err := c.request(&godap.AttachRequest{Request: c.req("attach"), Arguments: raw}); err != nil {
		return nil, err
	}
	if _, err := c.request(&godap.ConfigurationDoneRequest{Request: c.req("configurationDone")}); err != nil {
		return nil, err
	}
	set := func(action, file string, line int) error {
		path := filepath.Join(sources, filepath.FromSlash(file))
		err := m.run(action, func() error {
			bps, err := c.setBreakpoints(path, line)
			if err == nil && (len(bps) != 1 || !bps[0].Verified) {
				err = fmt.Errorf("the breakpoint at %s:%d is not verified: %+v", file, line, bps)
			}
			return err
		})
		if err != nil {
			return err
		}
		_, err = c.setBreakpoints(path) // cleared: the next action starts from none
		return err
	}
	if err := set(ktActFirstFile, ktFile(0), ktBodyLine); err != nil {
		return nil, err
	}
	for r := range runs {
		if err := set(ktActOtherFile, ktFile(1+r%(prog.nfile-1)), ktBodyLine); err != nil {
			return nil, err
		}
	}
	for range runs {
		if err := set(ktActSameFile, ktFile(0), ktBodyLine); err != nil {
			return nil, err
		}
	}
	for range runs {
		if err := set(ktActInline, prog.inline, prog.inlineLine); err != nil {
			return nil, err
		}
	}
	_, _ = c.request(&godap.DisconnectRequest{Request: c.req("disconnect"), Arguments: &godap.DisconnectArguments{}})
	return m.results(), nil
}

// kotlinSMAPs reads every generated class's SourceDebugExtension over JDWP
// (itself an action: what the adapter's first .kt breakpoint costs at most)
// and times smap.Parse on them.
func kotlinSMAPs(ctx context.Context, addr string, prog kotlinBenchProgram, out *kotlinBench) error {
	p, err := linkproxy.Start(addr, 0)
	if err != nil {
		return err
	}
	defer p.Close()
	nc, err := jvmrun.DialHandshake(ctx, p.Addr())
	if err != nil {
		return err
	}
	conn := jdwp.NewConn(nc, jdwpOptions("jdwp"))
	defer conn.Close()
	if _, err := conn.IDSizes(ctx); err != nil {
		return err
	}
	all, err := conn.AllClasses(ctx)
	if err != nil {
		return err
	}
	var ours []jdwp.ReferenceTypeID
	for _, cl := range all {
		if strings.HasPrefix(cl.Signature, "Lbench/") {
			ours = append(ours, cl.ID)
		}
	}
	out.Classes = len(ours)
	m := &measure{p: p, client: "jdwp", sums: map[string]*linkAction{}}
	var texts []string
	err = m.run(ktActSDE, func() error {
		for _, id := range ours {
			text, err := conn.SourceDebugExtension(ctx, id)
			if jdwp.Code(err) == jdwp.ErrAbsentInformation {
				continue
			}
			if err != nil {
				return err
			}
			texts = append(texts, text)
		}
		return nil
	})
	if err != nil {
		return err
	}
	out.Actions = append(out.Actions, m.results()...)
	out.WithSMAP = len(texts)
	inlineName := filepath.Base(prog.inline)
	for _, t := range texts {
		out.SMAPBytes += len(t)
		s, err := smap.Parse(t)
		if err != nil {
			return fmt.Errorf("a generated class's source map does not parse: %w\n%s", err, t)
		}
		if st := s.Stratum("Kotlin"); st != nil {
			for _, f := range st.Files {
				if f.Name == inlineName {
					out.InlinedInto++
					break
				}
			}
		}
	}
	if len(texts) == 0 {
		return nil
	}
	// Enough rounds for a measurable total (at least 50 ms, at most 200 rounds).
	start := time.Now()
	rounds := 0
	for rounds < 200 && (rounds == 0 || time.Since(start) < 50*time.Millisecond) {
		for _, t := range texts {
			if _, err := smap.Parse(t); err != nil {
				return err
			}
		}
		rounds++
	}
	out.ParseRounds = rounds
	out.ParseNsPerClass = float64(time.Since(start).Nanoseconds()) / float64(rounds*len(texts))
	return nil
}

func printKotlinBench(w io.Writer, b *kotlinBench, asJSON bool) {
	if asJSON {
		json.NewEncoder(w).Encode(b)
		return
	}
	if b.CompileSeconds > 0 {
		fmt.Fprintf(w, "compiled by kotlinc in %.1f s (cached by content from now on)\n", b.CompileSeconds)
	}
	fmt.Fprintf(w, "a Kotlin program of %d loaded classes, %d with a source map (%d bytes), %d of them inlining Inline.kt\n",
		b.Classes, b.WithSMAP, b.SMAPBytes, b.InlinedInto)
	fmt.Fprintf(w, "SMAP parse: %.0f ns per class (%d rounds of %d maps)\n", b.ParseNsPerClass, b.ParseRounds, b.WithSMAP)
	acts := append([]linkAction(nil), b.Actions...)
	order := map[string]int{ktActFirstFile: 0, ktActOtherFile: 1, ktActSameFile: 2, ktActInline: 3, ktActSDE: 4}
	sort.SliceStable(acts, func(i, j int) bool { return order[acts[i].Action] < order[acts[j].Action] })
	fmt.Fprintf(w, "%-42s | %8s | %8s | %6s | %s\n", "action (through a zero-delay JDWP proxy)", "ms", "commands", "seq rt", "runs")
	for _, a := range acts {
		fmt.Fprintf(w, "%-42s | %8.1f | %8.0f | %6.1f | %d\n", a.Action, a.Millis, a.Commands, a.Sequential, a.Runs)
	}
	printKotlinCoroutines(w, b.Coroutines)
}

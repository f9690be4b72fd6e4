package jvmrun

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp/localjvm"
)

// BenchTargetSource is shared/bench/BenchTarget.java, the debuggee every JDWP
// client comparison uses: parked threads with deep stacks (system properties
// threads, depth), an object graph in BenchTarget.graph (objects) and a hot
// loop calling BenchTarget.step(int). It prints READY once every thread is
// parked.
//
//go:embed sample/BenchTarget.java
var BenchTargetSource string

//go:embed jdi/JdiBench.java
var jdiBenchSource string

// BenchWorkloads names the benchmark workloads, in the order of
// shared/bench/README.md.
var BenchWorkloads = []string{"classes", "threaddump", "locals", "objects", "step"}

// BenchResult is one benchmark run, as printed on one JSON line:
// {"client":"jdi","workload":"objects","items":10000,"seconds":0.4123}.
type BenchResult struct {
	Client   string  `json:"client"`
	Workload string  `json:"workload"`
	Items    int     `json:"items"`
	Seconds  float64 `json:"seconds"`
}

// BenchTargetClasses compiles BenchTargetSource (once; see CompileFiles) and
// returns the class directory holding BenchTarget.
func BenchTargetClasses(ctx context.Context) (string, error) {
	return CompileFiles(ctx, map[string][]byte{"BenchTarget.java": []byte(BenchTargetSource)})
}

// StartBenchTarget compiles and starts BenchTarget. opts.MainClass defaults
// to "BenchTarget" and, unless opts.Suspend is set, opts.ReadyLine to
// "READY"; the class directory is put first on opts.ClassPath. Sizes are set
// with system properties in opts.VMArgs: "-Dthreads=20", "-Ddepth=10",
// "-Dobjects=500".
func StartBenchTarget(ctx context.Context, opts Options) (*JVM, error) {
	dir, err := BenchTargetClasses(ctx)
	if err != nil {
		return nil, err
	}
	opts.ClassPath = append([]string{dir}, opts.ClassPath...)
	if opts.MainClass == "" {
		opts.MainClass = "BenchTarget"
	}
	if opts.ReadyLine == "" && !opts.Suspend {
		opts.ReadyLine = "READY"
	}
	return Start(ctx, opts)
}

// RunJDI runs one benchmark workload (one of BenchWorkloads) with the JDI
// reference client, jdi/JdiBench.java, against the BenchTarget whose JDWP
// agent listens at addr (server=y), and returns the JSON line it printed.
// JdiBench detaches when done, so the debuggee can serve the next run.
func RunJDI(ctx context.Context, addr, workload string) (BenchResult, error) {
	dir, err := CompileFiles(ctx, map[string][]byte{"JdiBench.java": []byte(jdiBenchSource)})
	if err != nil {
		return BenchResult{}, err
	}
	java, err := FindTool("java")
	if err != nil {
		return BenchResult{}, err
	}
	cmd := exec.CommandContext(ctx, java, "-cp", dir, "JdiBench", addr, workload)
	cmd.SysProcAttr = localjvm.ProcAttr()
	cmd.Cancel = func() error { localjvm.KillGroup(cmd.Process); return nil }
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	fail := func(err error) (BenchResult, error) {
		return BenchResult{}, fmt.Errorf("jdi %s at %s: %w\n%s", workload, addr, err, strings.TrimSpace(stderr.String()+"\n"+stdout.String()))
	}
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return fail(err)
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	var r BenchResult
	if err := json.Unmarshal([]byte(last), &r); err != nil {
		return fail(fmt.Errorf("no JSON result line: %w", err))
	}
	return r, nil
}

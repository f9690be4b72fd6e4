package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/ddm/simvm"
)

func init() {
	register(&command{
		name:    "simvm",
		summary: "run a simulated DDM-speaking Android VM (for tests and demos); without --jvm it answers DDM only and cannot be debugged",
		synopsis: "ddmbridge simvm [--profile art|current|draft] [--listen 127.0.0.1:8000] [--jvm HOST:PORT] [--app NAME] [--pid N] [--wait]\n" +
			"[--threads N] [--gc D] [--seed N]",
		run: runSimVM,
	})
}

func runSimVM(ctx context.Context, fs *flag.FlagSet, args []string) error {
	profile := fs.String("profile", "art", "VM generation to imitate: art (what ART/ddmlib do), current (ART today: no THST/STKL, agent loaded on the first non-DDM packet) or draft (the 2007 DDM design)")
	listen := fs.String("listen", "127.0.0.1:8000", "address to accept JDWP connections on")
	jvm := fs.String("jvm", "", "HOST:PORT of a real JVM's JDWP agent to sit in front of (non-DDM JDWP passes through)")
	app := fs.String("app", "com.example.simvm", "application name reported in HELO/APNM")
	pid := fs.Uint("pid", 4242, "process id reported in HELO")
	wait := fs.Bool("wait", false, "report waiting-for-debugger (WAIT before the HELO reply)")
	threads := fs.Int("threads", 6, "synthetic threads at start")
	gc := fs.Duration("gc", 2*time.Second, "interval between simulated GCs")
	seed := fs.Uint64("seed", 1, "random seed of the simulation")
	if err := parse(ctx, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
	}
	p, err := simvm.ParseProfile(*profile)
	if err != nil {
		return fmt.Errorf("%w: --profile: %v", errUsage, err)
	}
	vm, err := simvm.New(simvm.Options{
		Profile: p, AppName: *app, PID: uint32(*pid), WaitingForDebugger: *wait, Threads: *threads,
		GCInterval: *gc, Seed: *seed, JVM: *jvm,
		Logger: component("ddm"), TraceChunks: traced("ddm.chunk"), TraceData: traced("ddm.data"),
	})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		vm.Close()
		return fmt.Errorf("listen %s: %w", *listen, err)
	}
	warnUnlessLoopback(ln, "simvm")
	fmt.Fprintf(stdout(ctx), "listening on %s\n", ln.Addr())
	if *jvm == "" {
		l := component("ddm")
		l.Info().Msg(ddm.DDMOnlyNote)
	}
	errc := make(chan error, 1)
	go func() { errc <- vm.Serve(ln) }()
	select {
	case <-ctx.Done():
		vm.Close()
		return nil
	case err := <-errc:
		vm.Close()
		return err
	}
}

// warnUnlessLoopback warns when a simulator's listener is reachable from
// other hosts: what it serves (JDWP, adb) lets them run code.
func warnUnlessLoopback(ln net.Listener, what string) {
	if a, ok := ln.Addr().(*net.TCPAddr); ok && !a.IP.IsLoopback() {
		l := component("bridge")
		l.Warn().Str("addr", a.String()).Msgf("%s listens on a non-loopback address (all interfaces for 0.0.0.0 or ::): anyone who can reach it can debug through it, which is running code. Use 127.0.0.1 unless on a trusted network.", what)
	}
}

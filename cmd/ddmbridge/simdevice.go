package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"strings"

	"github.com/ddmbridge/ddmbridge/bridge/adb/simdevice"
	"github.com/ddmbridge/ddmbridge/ddm/simvm"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmrun"
)

func init() {
	register(&command{
		name:    "simdevice",
		summary: "run a simulated Android device that the adb server accepts (adb connect ADDR)",
		synopsis: "ddmbridge simdevice [--listen 127.0.0.1:6555] [--procs N] [--jvm] [--profile art|current|draft] [--packages PKG,…]\n" +
			"[--model NAME] [--auth]",
		run: runSimDevice,
	})
}

// currentApps are the apps `simdevice --profile current` adds: one waiting
// for a debugger (am start -D), one frozen by the cached-apps freezer, and a
// release build that is only profileable.
var currentApps = []simdevice.ProcessOptions{
	{Name: "com.example.waiting", WaitingForDebugger: true},
	{Name: "com.example.cached", Frozen: true},
	{Name: "com.example.release", NotDebuggable: true, Profileable: true},
}

func runSimDevice(ctx context.Context, fs *flag.FlagSet, args []string) error {
	listen := fs.String("listen", "127.0.0.1:6555", "address to accept the adb server's connection on (then: adb connect ADDR); on an odd port from 5555 to 5585 the adb server also finds it by itself, as emulator-(PORT-1)")
	procs := fs.Int("procs", 2, "simulated VMs (DDM, ART profile) to start with")
	jvm := fs.Bool("jvm", false, "also run a real HotSpot JVM (needs a JDK) as a device process, DDM simulated in front of it")
	pkgs := fs.String("packages", "com.example.app", "comma-separated installed packages ('am start -D -n PKG/.Main' starts one)")
	model := fs.String("model", "Sim", "ro.product.model, shown by adb devices -l")
	auth := fs.Bool("auth", false, "ask the adb server for AUTH before going online (any key is accepted)")
	profile := fs.String("profile", "art", "which Android to imitate: art (the default: track-jdwp, the ART of Android 8–11, API 26–30, with every DDM heap chunk), "+
		"current (API 34: track-app with app_info, current ART: agent loaded on the first non-DDM packet, no THST/STKL, of the heap chunks only HPGC; "+
		"adds a waiting app, a frozen app and a profileable-only release app) or draft (the 2007 DDM draft)")
	logEvery := fs.Duration("log-interval", 0, "have every app log a line (tag SimApp; levels D, I, W, E in turn) at this interval, for logcat; 0: only the system's lines")
	if err := parse(ctx, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
	}
	if *procs < 0 {
		return fmt.Errorf("%w: --procs must be 0 or more", errUsage)
	}
	var packages []string
	for p := range strings.SplitSeq(*pkgs, ",") {
		if p = strings.TrimSpace(p); p != "" {
			packages = append(packages, p)
		}
	}
	vmProfile, err := simvm.ParseProfile(*profile)
	if err != nil {
		return fmt.Errorf("%w: --profile: %v", errUsage, err)
	}
	var features []string
	if vmProfile == simvm.ProfileCurrent {
		features = simdevice.CurrentFeatures
	}
	dev := simdevice.New(simdevice.Options{
		Model: *model, Packages: packages, Auth: *auth, Logger: rootLogger(), Features: features, // components "adb" and "ddm" are added
		LogInterval: *logEvery,
		VM:          simvm.Options{Profile: vmProfile, TraceChunks: traced("ddm.chunk"), TraceData: traced("ddm.data")},
	})
	defer dev.Close()
	for i := range *procs {
		if _, err := dev.AddProcess(simdevice.ProcessOptions{Name: fmt.Sprintf("com.example.sim%d", i+1)}); err != nil {
			return err
		}
	}
	if vmProfile == simvm.ProfileCurrent {
		for _, po := range currentApps {
			if _, err := dev.AddProcess(po); err != nil {
				return err
			}
		}
	}
	if *jvm {
		vm, err := jvmrun.StartBenchTarget(ctx, jvmrun.Options{})
		if err != nil {
			return fmt.Errorf("--jvm: %w", err)
		}
		defer vm.Close()
		if _, err := dev.AddProcess(simdevice.ProcessOptions{Name: "com.example.hotspot", JVM: vm.Addr}); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fmt.Errorf("listen %s: %w", *listen, err)
	}
	warnUnlessLoopback(ln, "simdevice")
	out := stdout(ctx)
	fmt.Fprintf(out, "listening on %s\n", ln.Addr())
	fmt.Fprintf(out, "connect the adb server to it with: adb connect %s\n", ln.Addr())
	if port := ln.Addr().(*net.TCPAddr).Port; port >= 5555 && port <= 5585 && port%2 == 1 {
		fmt.Fprintf(out, "(the adb server probes this port and also lists it by itself as emulator-%d)\n", port-1)
	}
	for _, p := range dev.Processes() {
		var what []string
		for _, w := range []struct {
			on   bool
			word string
		}{{p.WaitingForDebugger, "waiting for a debugger"}, {p.Frozen, "frozen"}, {p.NotDebuggable, "not debuggable"}, {p.Profileable, "profileable"}} {
			if w.on {
				what = append(what, w.word)
			}
		}
		if len(what) > 0 {
			fmt.Fprintf(out, "process %d %s (%s)\n", p.PID, p.Name, strings.Join(what, ", "))
			continue
		}
		fmt.Fprintf(out, "process %d %s\n", p.PID, p.Name)
	}
	errc := make(chan error, 1)
	go func() { errc <- dev.Serve(ln) }()
	select {
	case <-ctx.Done():
		dev.Close()
		return nil
	case err := <-errc:
		if errors.Is(err, net.ErrClosed) {
			return nil
		}
		return err
	}
}

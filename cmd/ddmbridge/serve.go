package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge"
	"github.com/ddmbridge/ddmbridge/bridge/access"
	"github.com/ddmbridge/ddmbridge/bridge/adb"
	"github.com/ddmbridge/ddmbridge/bridge/rpc"
	"github.com/ddmbridge/ddmbridge/dap"
)

func init() {
	register(&command{
		name:    "serve",
		summary: "monitor VMs: scan ports, own their JDWP connections, debugger ports, JSON-RPC control API",
		synopsis: "ddmbridge serve [--scan 127.0.0.1:8000-8040] [--debug-port-base 8600] [--current-port 8700] [--rpc ADDR | --stdio]\n" +
			"[--dap ADDR] [--adb HOST:PORT | --no-adb] [--allow-other-users] [--allow-remote] [--allow-exit]",
		run: runServe,
	})
}

// monitorFlags are the flags serve and demo share.
type monitorFlags struct {
	scan        string
	debugBase   int
	currentPort int
	allowRemote bool
	hold        time.Duration
	interval    time.Duration
	spin        time.Duration
}

func addMonitorFlags(fs *flag.FlagSet) *monitorFlags {
	f := &monitorFlags{}
	fs.StringVar(&f.scan, "scan", "127.0.0.1:8000-8040", "comma-separated HOST:LO-HI port ranges to scan for VMs; empty scans nothing")
	fs.DurationVar(&f.interval, "scan-interval", time.Second, "time between probes of a port without a VM")
	fs.IntVar(&f.debugBase, "debug-port-base", 8600, "first per-VM debugger port (0: ephemeral, -1: none)")
	fs.IntVar(&f.currentPort, "current-port", 8700, "port that leads to the current VM (0: ephemeral, -1: none)")
	fs.BoolVar(&f.allowRemote, "allow-remote", false, "listen on all interfaces instead of loopback (DANGEROUS: a JDWP port is remote code execution)")
	fs.DurationVar(&f.hold, "hold-timeout", 30*time.Second, "how long a debugger on the current-VM port waits for a VM to become current")
	fs.DurationVar(&f.spin, "spin-wait", 0, "accepted and ignored: busy polling was removed (it lost wherever every core is busy)")
	return f
}

// options turns the flags into monitor options with the logging wiring.
func (f *monitorFlags) options() (bridge.Options, error) {
	o := bridge.Options{
		ScanInterval: f.interval, DebugPortBase: f.debugBase, CurrentPort: f.currentPort,
		AllowRemote: f.allowRemote, HoldTimeout: f.hold,
		Logger:     rootLogger(),
		TraceProxy: traced("bridge.proxy"), TraceScan: traced("bridge.scan"),
		JDWP: *jdwpOptions("jdwp"), TraceChunks: traced("ddm.chunk"), TraceData: traced("ddm.data"),
	}
	if f.scan != "" {
		r, err := bridge.ParseRanges(f.scan)
		if err != nil {
			return o, fmt.Errorf("%w: --scan: %v", errUsage, err)
		}
		o.Scan = r
	}
	if f.spin != 0 {
		l := component("bridge")
		l.Warn().Dur("spin-wait", f.spin).Msg("--spin-wait is ignored: busy polling was removed (it was 3× slower wherever every core is busy)")
	}
	if f.allowRemote {
		l := component("bridge")
		l.Warn().Msg("--allow-remote: debugger ports listen on ALL interfaces. Anyone who can reach them can run arbitrary code in your VMs. Use only on a trusted network.")
	}
	return o, nil
}

func runServe(ctx context.Context, fs *flag.FlagSet, args []string) error {
	mf := addMonitorFlags(fs)
	rpcAddr := fs.String("rpc", access.DefaultRPCAddr(), "control API address: unix:PATH or tcp:HOST:PORT (loopback unless --allow-remote)")
	stdio := fs.Bool("stdio", false, "serve the control API on stdin/stdout (language-server style) instead of --rpc; logs stay on stderr")
	allowExit := fs.Bool("allow-exit", false, "allow the vm/exit method to end VMs")
	adbAddr := fs.String("adb", "", "adb server HOST:PORT whose devices' VMs to monitor (default: $ADB_SERVER_SOCKET, $ANDROID_ADB_SERVER_PORT or 127.0.0.1:5037; a local server is started when none runs)")
	noADB := fs.Bool("no-adb", false, "do not follow adb devices")
	allowOthers := fs.Bool("allow-other-users", false, "accept loopback TCP connections (--rpc tcp:…, --dap tcp:…) from other local users, and adopt VMs other local users run; by default only this user's are (checked on Linux)")
	dapAddr := fs.String("dap", "auto", "accept DAP sessions that debug through this monitor: unix:PATH or loopback tcp:HOST:PORT; 'auto' is a user-only socket for this process (the dap/address method reports it); '' accepts none")
	if err := parse(ctx, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
	}
	opts, err := mf.options()
	if err != nil {
		return err
	}
	opts.AllowOtherUsers = *allowOthers
	if !*noADB {
		opts.ADB, err = adbClient(*adbAddr)
		if err != nil {
			return err
		}
	}
	m, err := bridge.New(opts)
	if err != nil {
		return err
	}
	log := component("bridge")
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	// DAP sessions debug through the monitor: m is their Backend, so attach
	// requests reach VMs through its proxy and DDM keeps flowing.
	lopts := access.ListenOptions{AllowOtherUsers: *allowOthers, Logger: rootLogger()}
	dapLn, dapAt, err := listenDAP(*dapAddr, lopts)
	if err != nil {
		m.Close()
		return err
	}
	if dapLn != nil {
		defer dapLn.Close()
		cfg := dapConfig()
		cfg.Backend = monitorBackend{m}
		dsrv := dap.NewServer(cfg)
		log.Info().Str("dap", dapAt).Msg("DAP sessions accepted")
		wg.Add(1)
		go func() {
			defer wg.Done()
			serveDAPSessions(ctx, dapLn, dsrv)
		}()
	}
	srv := rpc.NewServer(m, rpc.ServerOptions{AllowExit: *allowExit, Logger: rootLogger(), TraceMessages: traced("rpc.msg"), DAPAddr: dapAt, CheckDebugConfig: dap.CheckConfig})
	if *stdio {
		wg.Add(1)
		go func() {
			defer wg.Done()
			srv.ServeConn(ctx, stdioConn{os.Stdin, os.Stdout})
			cancel() // the client closed stdin: we are done
		}()
	} else {
		lopts.AllowRemote = mf.allowRemote
		ln, err := access.Listen(*rpcAddr, lopts)
		if err != nil {
			m.Close()
			return err
		}
		log.Info().Str("rpc", *rpcAddr).Msg("control API listening")
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := srv.Serve(ctx, ln); err != nil {
				log.Error().Err(err).Msg("control API stopped")
			}
		}()
	}
	if addr := m.CurrentAddr(); addr != "" {
		log.Info().Str("addr", addr).Msgf("current-VM port: jdb -attach %s", addr)
	}

	err = m.Run(ctx)
	cancel()
	wg.Wait()
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// monitorBackend is the monitor as the DAP server's Backend: OpenDebugger and
// DDM come from it as they are, and Android launches become LaunchApp.
type monitorBackend struct{ *bridge.Monitor }

func (b monitorBackend) LaunchAndroid(ctx context.Context, req dap.AndroidLaunch, progress func(string)) (string, error) {
	return b.LaunchApp(ctx, bridge.LaunchRequest{Device: req.Device, Package: req.Package, Activity: req.Activity,
		AmStartArgs: req.AmStartArgs, APK: req.APK}, progress)
}

// DumpHeap dumps the heap of a debug session's VM as vm/dumpHeap does:
// HotSpot's attach mechanism for a local JVM, HPDS for a DDM VM.
func (b monitorBackend) DumpHeap(ctx context.Context, target string, live bool) ([]byte, error) {
	v, err := b.VM(target)
	if err != nil {
		return nil, err
	}
	return v.Dump(ctx, live)
}

// DumpHeapTo writes the dump to w (a file: nothing held in memory for a
// local HotSpot VM).
func (b monitorBackend) DumpHeapTo(ctx context.Context, target string, live bool, w io.Writer) (int64, error) {
	v, err := b.VM(target)
	if err != nil {
		return 0, err
	}
	return v.DumpTo(ctx, live, w)
}

var (
	_ dap.AndroidLauncher = monitorBackend{}
	_ dap.HeapDumper      = monitorBackend{}
	_ dap.HeapWriter      = monitorBackend{}
	_ dap.LaunchAdopter   = monitorBackend{} // launched JVMs are monitored
	_ dap.VMIdentifier    = monitorBackend{}
	_ dap.AppStopper      = monitorBackend{} // Stop force-stops a launched app
)

// listenDAP opens the listener for DAP sessions. "auto" is a user-only unix
// socket named after this process, so several monitors never collide (the
// sockets of killed monitors are removed first); TCP must be loopback
// whatever --allow-remote says: a DAP session can start programs.
func listenDAP(addr string, o access.ListenOptions) (net.Listener, string, error) {
	switch addr {
	case "":
		return nil, "", nil
	case "auto":
		_, rpcPath, err := access.ParseRPCAddr(access.DefaultRPCAddr())
		if err != nil {
			return nil, "", err
		}
		dir := filepath.Dir(rpcPath)
		log := component("dap")
		for _, p := range access.CleanStaleSockets(dir, "dap-*.sock") {
			log.Info().Str("socket", p).Msg("removed the socket of a monitor that is gone")
		}
		addr = "unix:" + filepath.Join(dir, fmt.Sprintf("dap-%d.sock", os.Getpid()))
	}
	if network, address, err := access.ParseRPCAddr(addr); err == nil && network == "tcp" {
		host, _, _ := net.SplitHostPort(address)
		if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return nil, "", fmt.Errorf("%w: --dap %s is not loopback: DAP is never served remotely, --allow-remote or not (a DAP session can start programs)", errUsage, addr)
		}
	}
	o.AllowRemote = false
	ln, err := access.Listen(addr, o)
	if err != nil {
		return nil, "", fmt.Errorf("--dap: %w", err)
	}
	if ln.Addr().Network() == "tcp" {
		addr = "tcp:" + ln.Addr().String()
	}
	return ln, addr, nil
}

// serveDAPSessions runs one DAP session per connection until ctx ends.
func serveDAPSessions(ctx context.Context, ln net.Listener, srv *dap.Server) {
	log := component("dap")
	context.AfterFunc(ctx, func() { ln.Close() })
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		nc, err := ln.Accept()
		if err != nil {
			if ctx.Err() == nil && !errors.Is(err, net.ErrClosed) {
				log.Error().Err(err).Msg("DAP listener failed; no more sessions")
			}
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer nc.Close()
			log.Info().Msg("DAP session starts")
			if err := srv.ServeConn(ctx, nc); err != nil {
				log.Warn().Err(err).Msg("DAP session ended with an error")
			}
			log.Info().Msg("DAP session ended")
		}()
	}
}

// adbClient is the client of the adb server serve follows: addr, else the one
// the environment selects.
func adbClient(addr string) (*adb.Client, error) {
	if addr != "" {
		a, err := adb.ParseServerSocket(addr)
		if err != nil {
			return nil, fmt.Errorf("%w: --adb: %v", errUsage, err)
		}
		addr = a
	} else if _, err := adb.ServerAddr(); err != nil {
		return nil, fmt.Errorf("%w (or pass --adb HOST:PORT, or --no-adb)", err)
	}
	return &adb.Client{Addr: addr, Logger: rootLogger()}, nil
}

// stdioConn is stdin and stdout as one connection.
type stdioConn struct {
	io.Reader
	io.Writer
}

func (stdioConn) Close() error { return os.Stdin.Close() }

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"

	"github.com/ddmbridge/ddmbridge/bridge/access"
	"github.com/ddmbridge/ddmbridge/dap"
	"github.com/ddmbridge/ddmbridge/ddm"
)

func init() {
	register(&command{
		name:     "dap",
		summary:  "speak the Debug Adapter Protocol on stdio for one debug session (or on --listen ADDR)",
		synopsis: "ddmbridge dap [--listen 127.0.0.1:PORT [--allow-other-users]]",
		run:      runDAP,
	})
}

func runDAP(ctx context.Context, fs *flag.FlagSet, args []string) error {
	listen := fs.String("listen", "", "serve DAP on this loopback TCP address (e.g. 127.0.0.1:4711) instead of stdio, one session after another, for debugging the adapter")
	allowOthers := fs.Bool("allow-other-users", false, "with --listen, accept connections from other local users too; by default only this user's are (checked on Linux)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: ddmbridge dap [--listen 127.0.0.1:PORT]")
		fmt.Fprintln(fs.Output(), "\nWithout --listen, one DAP session runs on stdin/stdout; logs go to stderr only.")
		fs.PrintDefaults()
	}
	if err := parse(ctx, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
	}
	srv := dap.NewServer(dapConfig())
	log := component("dap")
	if *listen == "" {
		return srv.ServeConn(ctx, stdio{os.Stdin, stdout(ctx)})
	}
	host, _, err := net.SplitHostPort(*listen)
	if err != nil {
		return fmt.Errorf("%w: --listen %q: %v", errUsage, *listen, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("%w: --listen %q: only loopback addresses are allowed (the adapter can start programs)", errUsage, *listen)
	}
	ln, err := access.Listen("tcp:"+*listen, access.ListenOptions{AllowOtherUsers: *allowOthers, Logger: rootLogger()})
	if err != nil {
		return err
	}
	defer ln.Close()
	context.AfterFunc(ctx, func() { ln.Close() })
	log.Info().Str("addr", ln.Addr().String()).Msg("DAP server listening")
	fmt.Fprintf(os.Stderr, "DAP server listening on %s\n", ln.Addr())
	for {
		nc, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return fmt.Errorf("accept: %w", err)
		}
		log.Info().Str("client", nc.RemoteAddr().String()).Msg("DAP session starts")
		if err := srv.ServeConn(ctx, nc); err != nil {
			log.Warn().Err(err).Msg("DAP session ended with an error")
		}
		log.Info().Msg("DAP session ended")
	}
}

// dapConfig wires the server's logging and trace kinds from the flags.
func dapConfig() dap.Config {
	return dap.Config{
		Logger:        rootLogger(),
		TraceMessages: traced("dap.msg"),
		JDWP:          *jdwpOptions("jdwp"),
		DDM:           ddm.Options{Logger: rootLogger(), TraceChunks: traced("ddm.chunk"), TraceData: traced("ddm.data")},
	}
}

// stdio joins stdin and stdout into the stream a session runs on. Closing it
// closes neither, so nothing else can then write to stdout by mistake.
type stdio struct {
	io.Reader
	io.Writer
}

func (stdio) Close() error { return nil }

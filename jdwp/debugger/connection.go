package debugger

import (
	"context"
	"net"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/rs/zerolog"
)

// The connection's life, for a front end that holds a Target and never the
// JDWP connection itself.

// Attach performs the JDWP handshake on nc, bounded by ctx, and returns
// the target of the VM behind it, living as long as life (New); nc is
// closed when the handshake fails. What a session asks first (Preload)
// leaves with the handshake (jdwp.Options.Preload).
func Attach(ctx context.Context, nc net.Conn, jopts jdwp.Options, life context.Context, fe Frontend, opts Options, log zerolog.Logger, spawn func(func())) (*Target, error) {
	jopts.Preload = true
	conn, err := jdwp.Handshake(ctx, nc, &jopts)
	if err != nil {
		nc.Close()
		return nil, err
	}
	return New(life, conn, fe, opts, log, spawn), nil
}

// Close closes the connection to the VM (without detaching: see Detach).
func (t *Target) Close() error {
	t.conts.closeClassFiles()
	return t.Conn.Close()
}

// Exit ends the VM with an exit code.
func (t *Target) Exit(ctx context.Context, code int32) error { return t.Conn.Exit(ctx, code) }

// Err returns why the connection ended, or nil while it lives.
func (t *Target) Err() error { return t.Conn.Err() }

// Wire is the connection, for the DDM channel that rides it (vendor
// packets, command set 0xC7: package ddm attaches to it). Nothing else in
// a front end sends on it.
func (t *Target) Wire() *jdwp.Conn { return t.Conn }

// AllowVendorCommands lets the VM's vendor commands (DDM) through to the
// connection's handler.
func (t *Target) AllowVendorCommands() { t.Conn.AllowVendorCommands() }

// NewMemory returns the memory view of the target (see NewMemory).
func (t *Target) NewMemory(cfg MemoryConfig) *Memory { return NewMemory(t.Conn, t.Stops, cfg) }

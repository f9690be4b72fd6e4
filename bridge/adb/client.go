package adb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rs/zerolog"
)

// Client talks to an adb server. The zero value uses the server the
// environment selects (see ServerAddr) and starts it when none runs. A
// Client is safe for concurrent use; every call opens its own connection.
type Client struct {
	// Addr is the server's HOST:PORT ("127.0.0.1:5037"); empty means
	// ServerAddr(). `ddmbridge serve --adb ADDR` sets it.
	Addr string
	// ADB is the adb executable StartServer runs; empty means "adb" on $PATH.
	ADB string
	// NoStart disables starting a server when none answers on a loopback
	// address; calls then fail with "connection refused".
	NoStart bool
	// DialTimeout bounds connecting to the server when the context has no
	// earlier deadline; zero means 5 s.
	DialTimeout time.Duration
	// DevicePoll is how often TrackDevices re-reads the device list besides
	// following the server's pushes; zero means DefaultDevicePoll, negative
	// disables polling.
	DevicePoll time.Duration
	// Logger receives the client's logs; component "adb" is added.
	Logger zerolog.Logger

	startMu sync.Mutex // one StartServer at a time
}

// maxOneShot bounds what a one-shot service (shell, jdwp) may return.
const maxOneShot = 64 << 20

func (c *Client) log() *zerolog.Logger {
	l := c.Logger.With().Str("component", "adb").Logger()
	return &l
}

func (c *Client) addr() (string, error) {
	if c.Addr != "" {
		return c.Addr, nil
	}
	return ServerAddr()
}

// dial connects to the server, starting it once if nothing listens.
func (c *Client) dial(ctx context.Context, start bool) (net.Conn, error) {
	addr, err := c.addr()
	if err != nil {
		return nil, err
	}
	timeout := c.DialTimeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	d := net.Dialer{Timeout: timeout}
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err == nil {
		return nc, nil
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return nil, fmt.Errorf("adb server %s: %w", addr, err)
	}
	if !start || c.NoStart {
		return nil, fmt.Errorf("adb server %s: %w — is it running? (adb -P PORT start-server)", addr, err)
	}
	c.startMu.Lock()
	defer c.startMu.Unlock()
	if nc, err := d.DialContext(ctx, "tcp", addr); err == nil {
		return nc, nil // another call started it meanwhile
	}
	if err := c.StartServer(ctx); err != nil {
		return nil, err
	}
	nc, err = d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("adb server %s: started, but still %w", addr, err)
	}
	return nc, nil
}

// guard makes ctx's end unblock every read and write on nc until the returned
// release is called; release reports ctx's error if it fired.
func guard(ctx context.Context, nc net.Conn) (release func() error) {
	stop := context.AfterFunc(ctx, func() { nc.SetDeadline(time.Unix(1, 0)) })
	return func() error {
		if !stop() && ctx.Err() != nil {
			return ctx.Err()
		}
		return nil
	}
}

// send writes one framed request and reads its status.
func send(nc net.Conn, req string) error {
	msg, err := EncodeMessage(req)
	if err != nil {
		return err
	}
	if _, err := nc.Write(msg); err != nil {
		return fmt.Errorf("adb %s: %w", req, err)
	}
	return ReadStatus(nc, req)
}

// open connects and sends the host requests in reqs one after another (e.g.
// host:transport:SERIAL, then a device service) on the same socket; the
// returned connection is past the last OKAY. ctx bounds only the opening.
func (c *Client) open(ctx context.Context, reqs ...string) (net.Conn, error) {
	return c.openWith(ctx, true, reqs...)
}

func (c *Client) openNoStart(ctx context.Context, reqs ...string) (net.Conn, error) {
	return c.openWith(ctx, false, reqs...)
}

func (c *Client) openWith(ctx context.Context, start bool, reqs ...string) (net.Conn, error) {
	nc, err := c.dial(ctx, start)
	if err != nil {
		return nil, err
	}
	release := guard(ctx, nc)
	for _, req := range reqs {
		err = send(nc, req)
		if err != nil {
			break
		}
		c.log().Trace().Str("request", req).Msg("OKAY")
	}
	if cerr := release(); cerr != nil {
		err = fmt.Errorf("adb %s: %w", strings.Join(reqs, " → "), cerr)
	}
	if err != nil {
		nc.Close()
		return nil, err
	}
	nc.SetDeadline(time.Time{})
	return nc, nil
}

// exchange runs f on nc under ctx (whose end unblocks f) and closes nc. An
// error other than the server's FAIL is reported as what failed.
func exchange(ctx context.Context, nc net.Conn, what string, f func(net.Conn) error) error {
	defer nc.Close()
	release := guard(ctx, nc)
	err := f(nc)
	if cerr := release(); cerr != nil {
		err = cerr
	}
	var fe *FailError
	if err != nil && !errors.As(err, &fe) {
		return fmt.Errorf("%s: %w", what, err)
	}
	return err
}

// query sends a host request whose OKAY is followed by one length-prefixed
// body, and returns the body.
func (c *Client) query(ctx context.Context, req string) (body string, err error) {
	nc, err := c.open(ctx, req)
	if err != nil {
		return "", err
	}
	err = exchange(ctx, nc, "adb "+req+": reading the answer", func(nc net.Conn) (err error) {
		body, err = ReadMessage(nc)
		return err
	})
	return body, err
}

// Version returns the server's protocol version (41 for adb 1.0.41).
func (c *Client) Version(ctx context.Context) (int, error) {
	body, err := c.query(ctx, "host:version")
	if err != nil {
		return 0, err
	}
	v, err := ParseHexLength([]byte(body))
	if err != nil {
		return 0, fmt.Errorf("adb host:version: answer %q: %w", body, err)
	}
	return v, nil
}

// Devices lists the devices the server knows, with details (host:devices-l).
func (c *Client) Devices(ctx context.Context) ([]Device, error) {
	body, err := c.query(ctx, "host:devices-l")
	if err != nil {
		return nil, err
	}
	return ParseDevices(body)
}

// Connect asks the server to connect to a device over TCP (`adb connect
// HOST:PORT`) and returns its message ("connected to …", "already connected
// to …").
func (c *Client) Connect(ctx context.Context, hostPort string) (string, error) {
	msg, err := c.query(ctx, "host:connect:"+hostPort)
	if err != nil {
		return "", err
	}
	if !strings.Contains(msg, "connected to") || strings.HasPrefix(msg, "failed") || strings.HasPrefix(msg, "unable") {
		return msg, fmt.Errorf("adb connect %s: %s — is a device (or ddmbridge simdevice) listening there?", hostPort, msg)
	}
	return msg, nil
}

// Disconnect drops a TCP device (`adb disconnect HOST:PORT`).
func (c *Client) Disconnect(ctx context.Context, hostPort string) error {
	_, err := c.query(ctx, "host:disconnect:"+hostPort)
	return err
}

// Features returns the features the device announced in its banner
// ("shell_v2", "cmd", …).
func (c *Client) Features(ctx context.Context, serial string) ([]string, error) {
	body, err := c.query(ctx, "host-serial:"+serial+":features")
	if err != nil {
		return nil, err
	}
	if body == "" {
		return nil, nil
	}
	return strings.Split(body, ","), nil
}

// transportRequest selects a device: by serial, or the only one when serial
// is empty.
func transportRequest(serial string) string {
	if serial == "" {
		return "host:transport-any"
	}
	return "host:transport:" + serial
}

// OpenService switches a new connection to the device and opens one of its
// services ("track-jdwp", "jdwp:1234", "shell:ls"); the returned connection
// carries the service's stream. ctx bounds only the opening.
func (c *Client) OpenService(ctx context.Context, serial, service string) (net.Conn, error) {
	nc, err := c.open(ctx, transportRequest(serial), service)
	if err != nil {
		var fe *FailError
		if errors.As(err, &fe) && strings.Contains(fe.Message, "not found") {
			return nil, fmt.Errorf("%w — is the device connected? (adb devices)", err)
		}
		return nil, err
	}
	return nc, nil
}

// runService opens a one-shot service and returns all it sends before
// closing the stream.
func (c *Client) runService(ctx context.Context, serial, service string) (out string, err error) {
	nc, err := c.OpenService(ctx, serial, service)
	if err != nil {
		return "", err
	}
	err = exchange(ctx, nc, "adb -s "+serial+" "+service, func(nc net.Conn) (err error) {
		out, err = readAll(nc, maxOneShot)
		return err
	})
	return out, err
}

// DialJDWP opens a raw stream to the JDWP of process pid on the device
// (jdwp:PID). The stream is before the handshake: the caller sends
// "JDWP-Handshake" and expects it back. ctx bounds only the opening. The
// device refuses when the VM already has a debugger or monitor attached.
func (c *Client) DialJDWP(ctx context.Context, serial string, pid int) (net.Conn, error) {
	nc, err := c.OpenService(ctx, serial, "jdwp:"+strconv.Itoa(pid))
	if err != nil {
		return nil, fmt.Errorf("%w (is process %d debuggable and without another debugger attached?)", err, pid)
	}
	return nc, nil
}

// JDWPProcesses lists the debuggable processes once (the jdwp service, as
// `adb jdwp` uses it).
func (c *Client) JDWPProcesses(ctx context.Context, serial string) ([]int, error) {
	out, err := c.runService(ctx, serial, "jdwp")
	if err != nil {
		return nil, err
	}
	return ParsePIDs(out)
}

// Tracker delivers a live list: the current one at once, then each change.
// Updates coalesce: a slow reader gets the newest list, never a stale one.
type Tracker[T any] struct {
	c    chan T
	done chan struct{}
	nc   net.Conn

	mu     sync.Mutex // producers: emit and finish
	ended  bool
	err    error
	unwait func() bool
}

func newTracker[T any](ctx context.Context, nc net.Conn) *Tracker[T] {
	t := &Tracker[T]{c: make(chan T, 1), done: make(chan struct{}), nc: nc}
	t.unwait = context.AfterFunc(ctx, func() { nc.Close() })
	return t
}

// Updates is closed when tracking ends; Err then says why.
func (t *Tracker[T]) Updates() <-chan T { return t.c }

// Done is closed when tracking has ended.
func (t *Tracker[T]) Done() <-chan struct{} { return t.done }

// Err is why tracking ended: nil while it runs, the context's error after
// cancellation, net.ErrClosed after Close, else what broke (the server
// restarted, the device went away).
func (t *Tracker[T]) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// Close ends tracking and waits until Updates is closed.
func (t *Tracker[T]) Close() error {
	t.nc.Close()
	<-t.done
	return nil
}

// emit delivers v, replacing an update the reader has not taken yet.
func (t *Tracker[T]) emit(v T) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ended {
		return
	}
	select {
	case t.c <- v:
	default:
		select {
		case <-t.c:
		default:
		}
		t.c <- v
	}
}

// finish ends tracking because reading failed with err.
func (t *Tracker[T]) finish(ctx context.Context, what string, err error) {
	t.nc.Close()
	canceled := !t.unwait() && ctx.Err() != nil
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ended {
		return
	}
	switch {
	case canceled:
		t.err = ctx.Err()
	case errors.Is(err, net.ErrClosed):
		t.err = net.ErrClosed
	case errors.Is(err, io.EOF):
		t.err = fmt.Errorf("%s: the adb server closed the stream (server restarted or device gone)", what)
	default:
		t.err = fmt.Errorf("%s: %w", what, err)
	}
	t.ended = true
	close(t.c)
	close(t.done)
}

// readLists emits each length-prefixed list decoded from nc until it fails.
func readLists[T any](ctx context.Context, t *Tracker[T], what string, parse func(string) (T, error), emit func(T)) {
	for {
		body, err := ReadMessage(t.nc)
		var v T
		if err == nil {
			v, err = parse(body)
		}
		if err != nil {
			t.finish(ctx, what, err)
			return
		}
		emit(v)
	}
}

// DefaultDevicePoll is how often TrackDevices also polls host:devices-l.
// The v29 server does not push a TCP device dropping to offline on
// track-devices (host:devices shows it at once); polling catches it.
const DefaultDevicePoll = 2 * time.Second

// TrackDevices follows the server's device list with details
// (host:track-devices-l, checked every DevicePoll against host:devices-l)
// until ctx ends or the tracker is closed. A device that is unplugged shows
// as StateOffline or disappears.
func (c *Client) TrackDevices(ctx context.Context) (*Tracker[[]Device], error) {
	nc, err := c.open(ctx, "host:track-devices-l")
	if err != nil {
		return nil, err
	}
	t := newTracker[[]Device](ctx, nc)
	var mu sync.Mutex
	var last []Device
	first := true
	emit := func(devs []Device) {
		mu.Lock()
		defer mu.Unlock()
		if !first && slices.Equal(devs, last) {
			return
		}
		first, last = false, devs
		t.emit(devs)
	}
	go readLists(ctx, t, "adb track-devices", ParseDevices, emit)
	poll := c.DevicePoll
	if poll == 0 {
		poll = DefaultDevicePoll
	}
	if poll > 0 {
		go func() {
			tick := time.NewTicker(poll)
			defer tick.Stop()
			for {
				select {
				case <-t.done:
					return
				case <-tick.C:
				}
				if devs, err := c.Devices(ctx); err == nil {
					emit(devs)
				}
			}
		}()
	}
	return t, nil
}

// TrackJDWP follows the device's debuggable processes (track-jdwp) until ctx
// ends, the tracker is closed or the device goes away (the stream ends at
// once when the device's connection drops: the earliest unplug signal).
func (c *Client) TrackJDWP(ctx context.Context, serial string) (*Tracker[[]int], error) {
	nc, err := c.OpenService(ctx, serial, "track-jdwp")
	if err != nil {
		return nil, err
	}
	t := newTracker[[]int](ctx, nc)
	go readLists(ctx, t, "adb -s "+serial+" track-jdwp", ParsePIDs, t.emit)
	return t, nil
}

package simdevice

import (
	"bufio"
	"crypto/rand"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

// writeTimeout bounds one message write to the adb server.
const writeTimeout = 10 * time.Second

// transport is one adb server connection: the device side of the transport
// protocol, with its streams.
type transport struct {
	d   *Device
	nc  net.Conn
	log zerolog.Logger

	wmu sync.Mutex // serialises message writes

	// Negotiated in CNXN; read by stream writers after online is set.
	mu      sync.Mutex
	version uint32
	maxData uint32
	online  bool
	streams map[uint32]*stream // by the device's (local) id
	nextID  uint32

	token  []byte        // the AUTH challenge sent, when Options.Auth
	closed chan struct{} // closed when the connection ends
}

func newTransport(d *Device, nc net.Conn) *transport {
	return &transport{
		d: d, nc: nc,
		log:     d.log.With().Str("peer", nc.RemoteAddr().String()).Logger(),
		version: VersionSkipChecksum,
		maxData: d.opt.MaxPayload,
		streams: map[uint32]*stream{},
		closed:  make(chan struct{}),
	}
}

// send writes one message; the checksum is filled below VersionSkipChecksum.
func (t *transport) send(m *Message) error {
	t.mu.Lock()
	sum := t.version < VersionSkipChecksum
	t.mu.Unlock()
	t.wmu.Lock()
	defer t.wmu.Unlock()
	t.nc.SetWriteDeadline(time.Now().Add(writeTimeout))
	_, err := t.nc.Write(m.Encode(sum))
	if err != nil {
		t.nc.Close()
	} else {
		t.log.Trace().Stringer("msg", m).Msg("sent")
	}
	return err
}

func (t *transport) run() {
	defer t.shutdown()
	t.log.Info().Msg("adb server connected")
	r := bufio.NewReaderSize(t.nc, 64<<10)
	for {
		m, err := ReadMessage(r, MaxPayload)
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				t.log.Warn().Err(err).Msg("transport read failed; dropping the connection")
			}
			return
		}
		t.log.Trace().Stringer("msg", m).Msg("received")
		if err := t.handle(m); err != nil {
			t.log.Warn().Err(err).Stringer("msg", m).Msg("dropping the connection")
			return
		}
	}
}

func (t *transport) shutdown() {
	t.nc.Close()
	close(t.closed)
	t.mu.Lock()
	streams := t.streams
	t.streams = map[uint32]*stream{}
	t.mu.Unlock()
	for _, s := range streams {
		s.remoteClosed()
	}
	t.log.Info().Msg("adb server disconnected")
}

func (t *transport) handle(m *Message) error {
	switch m.Command {
	case CNXN:
		return t.onConnect(m)
	case AUTH:
		return t.onAuth(m)
	case OPEN:
		return t.onOpen(m)
	case OKAY:
		if s := t.stream(m.Arg1); s != nil {
			s.acked()
		}
	case WRTE:
		s := t.stream(m.Arg1)
		if s == nil {
			// A stream we already closed: tell the server again.
			return t.send(&Message{Command: CLSE, Arg0: m.Arg1, Arg1: m.Arg0})
		}
		s.received(m.Data)
	case CLSE:
		t.mu.Lock()
		s := t.streams[m.Arg1]
		delete(t.streams, m.Arg1)
		t.mu.Unlock()
		if s != nil {
			s.remoteClosed()
		}
	default:
		t.log.Debug().Stringer("msg", m).Msg("ignoring an unknown command")
	}
	return nil
}

func (t *transport) onConnect(m *Message) error {
	if m.Arg0 < VersionMin {
		return errors.New("server protocol version too old")
	}
	t.mu.Lock()
	t.version = min(m.Arg0, uint32(VersionSkipChecksum))
	t.maxData = min(m.Arg1, t.d.opt.MaxPayload)
	t.mu.Unlock()
	t.log.Debug().Str("banner", string(m.Data)).Uint32("maxdata", m.Arg1).Msg("server CNXN")
	if t.d.opt.Auth {
		t.token = make([]byte, 20)
		rand.Read(t.token)
		return t.send(&Message{Command: AUTH, Arg0: AuthToken, Data: t.token})
	}
	return t.goOnline()
}

func (t *transport) onAuth(m *Message) error {
	if t.token == nil {
		return nil // never asked
	}
	switch m.Arg0 {
	case AuthSignature, AuthRSAPublicKey:
		// A real adbd verifies the signature against its authorised keys;
		// the simulation trusts every computer.
		t.log.Debug().Uint32("type", m.Arg0).Int("bytes", len(m.Data)).Msg("AUTH answered; accepting")
		t.token = nil
		return t.goOnline()
	}
	return nil
}

func (t *transport) goOnline() error {
	t.mu.Lock()
	t.online = true
	t.mu.Unlock()
	return t.send(&Message{Command: CNXN, Arg0: VersionSkipChecksum, Arg1: t.d.opt.MaxPayload, Data: []byte(t.d.banner())})
}

func (t *transport) stream(id uint32) *stream {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.streams[id]
}

func (t *transport) onOpen(m *Message) error {
	service := strings.TrimRight(string(m.Data), "\x00")
	t.mu.Lock()
	online := t.online
	t.mu.Unlock()
	if !online {
		return t.send(&Message{Command: CLSE, Arg1: m.Arg0})
	}
	serve, err := t.d.service(service)
	if err != nil {
		t.log.Info().Str("service", service).Err(err).Msg("refusing")
		return t.send(&Message{Command: CLSE, Arg1: m.Arg0})
	}
	t.mu.Lock()
	t.nextID++
	s := newStream(t, t.nextID, m.Arg0)
	t.streams[s.local] = s
	t.mu.Unlock()
	t.log.Debug().Str("service", service).Uint32("local", s.local).Uint32("remote", s.remote).Msg("opened")
	if err := t.send(&Message{Command: OKAY, Arg0: s.local, Arg1: s.remote}); err != nil {
		return err
	}
	t.d.wg.Add(1) // run holds a count, so this cannot race Close's Wait
	go func() {
		defer t.d.wg.Done()
		defer s.Close()
		serve(s)
	}()
	return nil
}

// stream is one service stream, an io.ReadWriteCloser for the service's
// handler. Writes are cut to the negotiated payload and wait for the
// server's OKAY before the next WRTE; reads acknowledge each WRTE when they
// take it, which is what paces the server.
type stream struct {
	t             *transport
	local, remote uint32

	wmu  sync.Mutex    // one Write (one WRTE in flight) at a time
	ack  chan struct{} // the server's OKAY for our WRTE
	wake chan struct{} // data arrived or the stream closed

	mu        sync.Mutex
	in        [][]byte // WRTE payloads not yet read
	buf       []byte   // the rest of the payload being read
	done      chan struct{}
	closeOnce sync.Once
	sentCLSE  bool
}

func newStream(t *transport, local, remote uint32) *stream {
	return &stream{t: t, local: local, remote: remote, ack: make(chan struct{}, 1), wake: make(chan struct{}, 1), done: make(chan struct{})}
}

func (s *stream) acked() {
	select {
	case s.ack <- struct{}{}:
	default:
	}
}

func (s *stream) received(data []byte) {
	s.mu.Lock()
	s.in = append(s.in, data)
	s.mu.Unlock()
	s.signal()
}

func (s *stream) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *stream) remoteClosed() {
	s.mu.Lock()
	s.sentCLSE = true // the server forgot the stream: nothing to close
	s.mu.Unlock()
	s.closeOnce.Do(func() { close(s.done) })
	s.signal()
}

func (s *stream) Read(p []byte) (int, error) {
	for {
		s.mu.Lock()
		if len(s.buf) == 0 && len(s.in) > 0 {
			s.buf, s.in = s.in[0], s.in[1:]
			s.mu.Unlock()
			// Taking a payload is what acknowledges it.
			if err := s.t.send(&Message{Command: OKAY, Arg0: s.local, Arg1: s.remote}); err != nil {
				return 0, err
			}
			continue
		}
		if len(s.buf) > 0 {
			n := copy(p, s.buf)
			s.buf = s.buf[n:]
			s.mu.Unlock()
			return n, nil
		}
		s.mu.Unlock()
		select {
		case <-s.done:
			s.mu.Lock()
			pending := len(s.in) > 0
			s.mu.Unlock()
			if !pending {
				return 0, io.EOF
			}
		case <-s.wake:
		}
	}
}

func (s *stream) Write(p []byte) (int, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.t.mu.Lock()
	maxData := int(s.t.maxData)
	s.t.mu.Unlock()
	written := 0
	for written < len(p) {
		select {
		case <-s.done:
			return written, io.ErrClosedPipe
		default:
		}
		// Never more than the negotiated payload: the server drops it.
		n := min(len(p)-written, maxData)
		if err := s.t.send(&Message{Command: WRTE, Arg0: s.local, Arg1: s.remote, Data: p[written : written+n]}); err != nil {
			return written, err
		}
		select {
		case <-s.ack:
		case <-s.done:
			return written, io.ErrClosedPipe
		}
		written += n
	}
	return written, nil
}

// Close sends CLSE unless the server closed the stream first.
func (s *stream) Close() error {
	s.mu.Lock()
	send := !s.sentCLSE
	s.sentCLSE = true
	s.mu.Unlock()
	s.closeOnce.Do(func() { close(s.done) })
	s.signal()
	if send {
		s.t.mu.Lock()
		delete(s.t.streams, s.local)
		s.t.mu.Unlock()
		return s.t.send(&Message{Command: CLSE, Arg0: s.local, Arg1: s.remote})
	}
	return nil
}

// Done is closed when either side closed the stream.
func (s *stream) Done() <-chan struct{} { return s.done }

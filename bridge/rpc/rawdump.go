package rpc

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge/access"
)

// A dump opened with vm/dumpHeap "stream": true is read fastest raw: the
// result carries a one-time token, and the client opens a second
// connection to the same control address (accepted, and its peer checked,
// as any control connection) that starts, instead of a Content-Length
// framed message, with
//
//	DDMBRIDGE-HEAPDUMP-READ <token> <offset>\n
//
// The monitor answers
//
//	DDMBRIDGE-HEAPDUMP <n>\n
//
// and the dump's n bytes from offset, unencoded, then closes; or
// "DDMBRIDGE-HEAPDUMP-ERROR <message>\n". Notifications the monitor sent
// the connection before it read the request (Content-Length framed) come
// first: the client skips them. The file goes to the socket in the kernel
// where it can (sendfile), so the monitor holds none of it; heapDump/read
// (base64 chunks in JSON) stays for clients that cannot open a second
// connection.

const (
	rawDumpRequest = "DDMBRIDGE-HEAPDUMP-READ "
	rawDumpReply   = "DDMBRIDGE-HEAPDUMP "
	rawDumpError   = "DDMBRIDGE-HEAPDUMP-ERROR "
	// rawDumpPiece is what goes out under one write deadline.
	rawDumpPiece = 8 << 20
)

// rawDumpWriteTimeout drops a raw reader that takes nothing this long; a
// slow reader that takes something keeps its stream (the deadline is
// extended while bytes move). A variable for tests.
var rawDumpWriteTimeout = 30 * time.Second

// rawDumps are the tokens of the open dump streams, across connections.
type rawDumps struct {
	mu     sync.Mutex
	tokens map[string]*os.File
}

// newRawToken makes a token for reading f raw.
func (r *rawDumps) newToken(f *os.File) (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	t := hex.EncodeToString(b[:])
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tokens == nil {
		r.tokens = map[string]*os.File{}
	}
	r.tokens[t] = f
	return t, nil
}

// claim returns the file of token, once.
func (r *rawDumps) claim(token string) *os.File {
	r.mu.Lock()
	defer r.mu.Unlock()
	f := r.tokens[token]
	delete(r.tokens, token)
	return f
}

// drop forgets the tokens of f (its stream is closed).
func (r *rawDumps) drop(f *os.File) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for t, g := range r.tokens {
		if g == f {
			delete(r.tokens, t)
		}
	}
}

// errRawMode refuses notifications on a connection that turned raw.
var errRawMode = errors.New("the connection reads a heap dump raw")

// isRawDump says whether the connection starts with a raw dump request.
func (t *tolerantStream) isRawDump() bool {
	b, err := t.r.Peek(1)
	if err != nil || b[0] != rawDumpRequest[0] {
		return false
	}
	b, _ = t.r.Peek(len(rawDumpRequest))
	return string(b) == rawDumpRequest
}

// serveRawDump answers a raw dump request on t's connection.
func (s *Server) serveRawDump(t *tolerantStream) {
	t.wmu.Lock()
	defer t.wmu.Unlock()
	t.rawMode = true
	fail := func(format string, args ...any) {
		fmt.Fprintf(t.rwc, rawDumpError+"%s\n", strings.ReplaceAll(fmt.Sprintf(format, args...), "\n", " "))
	}
	line, err := t.r.ReadSlice('\n')
	if err != nil {
		fail("the request line is longer than %d bytes or cut off: %v", t.r.Size(), err)
		return
	}
	fields := strings.Fields(strings.TrimPrefix(string(line), rawDumpRequest))
	if len(fields) != 2 {
		fail("want %q<token> <offset>", rawDumpRequest)
		return
	}
	off, err := strconv.ParseInt(fields[1], 10, 64)
	if err != nil || off < 0 {
		fail("offset %q: want a byte offset ≥ 0", fields[1])
		return
	}
	f := s.raw.claim(fields[0])
	if f == nil {
		fail("no open heap dump has this token (each token reads once; vm/dumpHeap with \"stream\": true gives one)")
		return
	}
	fi, err := f.Stat()
	if err != nil {
		fail("the dump: %v", err)
		return
	}
	if _, err := f.Seek(min(off, fi.Size()), io.SeekStart); err != nil {
		fail("the dump: %v", err)
		return
	}
	left := max(fi.Size()-off, 0)
	if _, err := fmt.Fprintf(t.rwc, rawDumpReply+"%d\n", left); err != nil {
		return
	}
	nc, _ := t.rwc.(net.Conn)
	start, sent, end := time.Now(), left, fi.Size()
	pos := min(off, end)
	for pos < end {
		if nc != nil {
			nc.SetWriteDeadline(time.Now().Add(rawDumpWriteTimeout))
		}
		// CopyN hands the socket an io.LimitedReader of the file: sendfile.
		n, err := io.CopyN(t.rwc, f, min(end-pos, rawDumpPiece))
		pos += n
		if err == nil {
			continue
		}
		if nc != nil && (n > 0 || errors.Is(err, os.ErrDeadlineExceeded)) {
			// A slow reader: the rest goes out piece by piece, each
			// write's deadline extended while bytes move.
			if err := s.slowRawDump(nc, f, pos, end); err != nil {
				s.log.Info().Err(err).Msg("a raw heap dump reader went away")
			}
			return
		}
		s.log.Info().Err(err).Int64("left", end-pos).Msg("a raw heap dump reader went away")
		return
	}
	s.log.Debug().Int64("bytes", sent).Dur("took", time.Since(start)).Msg("heap dump read raw")
}

// readRawDump reads the dump of token from offset off into w over a
// connection of its own to the monitor at addr, and returns the bytes
// written.
func readRawDump(ctx context.Context, addr, token string, off int64, w io.Writer) (int64, error) {
	nc, err := access.DialRPCConn(ctx, addr)
	if err != nil {
		return 0, err
	}
	defer nc.Close()
	stop := context.AfterFunc(ctx, func() { nc.Close() })
	defer stop()
	if _, err := fmt.Fprintf(nc, rawDumpRequest+"%s %d\n", token, off); err != nil {
		return 0, err
	}
	r := bufio.NewReaderSize(nc, 64<<10)
	n, err := rawDumpHeader(r)
	if err != nil {
		return 0, err
	}
	got, err := io.CopyN(w, r, n)
	if err == nil || ctx.Err() == nil {
		return got, err
	}
	return got, ctx.Err()
}

// rawDumpHeader skips the notifications before the monitor's answer and
// returns the length it announces.
func rawDumpHeader(r *bufio.Reader) (int64, error) {
	var body int64 = -1 // the length of a notification whose headers are read
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return 0, fmt.Errorf("raw heap dump: the monitor's answer: %w", err)
		}
		s := strings.TrimRight(string(line), "\r\n")
		switch {
		case strings.HasPrefix(s, rawDumpError):
			return 0, fmt.Errorf("raw heap dump: %s", strings.TrimPrefix(s, rawDumpError))
		case strings.HasPrefix(s, rawDumpReply):
			n, err := strconv.ParseInt(strings.TrimPrefix(s, rawDumpReply), 10, 64)
			if err != nil || n < 0 {
				return 0, fmt.Errorf("raw heap dump: the monitor announced %q", s)
			}
			return n, nil
		case s == "" && body >= 0:
			if _, err := r.Discard(int(body)); err != nil {
				return 0, fmt.Errorf("raw heap dump: a notification before the answer: %w", err)
			}
			body = -1
		case len(s) > len("Content-Length:") && strings.EqualFold(s[:len("Content-Length:")], "Content-Length:"):
			n, err := strconv.ParseInt(strings.TrimSpace(s[len("Content-Length:"):]), 10, 64)
			if err != nil || n < 0 || n > maxRPCMessage {
				return 0, fmt.Errorf("raw heap dump: a notification header %q", s)
			}
			body = n
		case body >= 0: // another header line of the notification
		default:
			return 0, fmt.Errorf("raw heap dump: the monitor answered %q (does it predate raw reads?)", s)
		}
	}
}

// slowRawDump writes f's bytes from pos to end to a reader slower than a
// write deadline's worth of a piece (see serveRawDump): 256 KiB at a time,
// read at its offset, each write given rawDumpWriteTimeout, and extended
// while the reader takes bytes; a reader that takes nothing for that long
// is dropped.
func (s *Server) slowRawDump(nc net.Conn, f *os.File, pos, end int64) error {
	buf := make([]byte, 256<<10)
	for pos < end {
		k, err := f.ReadAt(buf[:min(int64(len(buf)), end-pos)], pos)
		if k == 0 {
			return fmt.Errorf("the dump at %d: %w", pos, err)
		}
		b := buf[:k]
		for len(b) > 0 {
			nc.SetWriteDeadline(time.Now().Add(rawDumpWriteTimeout))
			w, err := nc.Write(b)
			b, pos = b[w:], pos+int64(w)
			if err != nil && !(w > 0 && errors.Is(err, os.ErrDeadlineExceeded)) {
				return fmt.Errorf("%w (%d bytes left)", err, end-pos)
			}
		}
	}
	return nil
}

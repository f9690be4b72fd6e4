package framing

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Limits on a message's header.
const (
	// MaxHeaderLine bounds one header line, its line end included.
	MaxHeaderLine = 4096
	// MaxHeaders bounds the header lines of one message.
	MaxHeaders = 32
)

// ErrFraming marks input that is not Content-Length framed within the
// limits; the stream cannot be resynchronized after it.
var ErrFraming = errors.New("bad message framing")

// ReadMessage reads one message: header lines ending in CRLF (or LF), one of
// them Content-Length, an empty line, then the body. maxBody bounds the
// body. What the reader buffers is bounded by its size; use a reader of at
// least MaxHeaderLine bytes. Errors reading r are returned as they are (io.EOF
// before a message starts); bad framing wraps ErrFraming and says what was
// wrong.
func ReadMessage(r *bufio.Reader, maxBody int) ([]byte, error) {
	n := -1
	for lines := 0; ; lines++ {
		if lines == MaxHeaders {
			return nil, fmt.Errorf("%w: more than %d header lines", ErrFraming, MaxHeaders)
		}
		line, err := readLine(r)
		if err != nil {
			if lines > 0 && errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		if line == "" {
			if n < 0 {
				return nil, fmt.Errorf("%w: a message without a Content-Length header", ErrFraming)
			}
			break
		}
		name, val, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("%w: header line %q is not NAME: VALUE", ErrFraming, clip(line))
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			v, err := strconv.Atoi(strings.TrimSpace(val))
			if err != nil || v < 0 {
				return nil, fmt.Errorf("%w: bad Content-Length %q", ErrFraming, clip(val))
			}
			if v > maxBody {
				return nil, fmt.Errorf("%w: Content-Length %d is over the limit of %d bytes", ErrFraming, v, maxBody)
			}
			n = v
		}
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return body, nil
}

// readLine reads one header line of at most MaxHeaderLine bytes and returns
// it without its line end.
func readLine(r *bufio.Reader) (string, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > MaxHeaderLine {
			return "", fmt.Errorf("%w: a header line longer than %d bytes (is the peer speaking Content-Length framed DAP or JSON-RPC?)", ErrFraming, MaxHeaderLine)
		}
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			if len(line) > 0 && errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return "", err
		}
		return strings.TrimRight(string(line), "\r\n"), nil
	}
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

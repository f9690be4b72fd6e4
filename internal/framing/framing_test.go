package framing

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

func read(s string, max int) ([]byte, error) {
	return ReadMessage(bufio.NewReader(strings.NewReader(s)), max)
}

func TestReadMessage(t *testing.T) {
	r := bufio.NewReader(strings.NewReader("Content-Length: 2\r\n\r\n{}content-length:3\nX-Other: y\n\n[1]"))
	for _, want := range []string{"{}", "[1]"} {
		b, err := ReadMessage(r, 100)
		if err != nil || string(b) != want {
			t.Fatalf("got %q, %v; want %q", b, err, want)
		}
	}
	if _, err := ReadMessage(r, 100); err != io.EOF {
		t.Fatalf("at the end: %v, want io.EOF", err)
	}
}

// TestReadMessageBounds: each unbounded input of issue 12 (a 256 MiB line
// without a line end took 545 MB) ends in a clear framing error.
func TestReadMessageBounds(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"long line", "Content-Length: " + strings.Repeat("1", 10*MaxHeaderLine), "header line longer than 4096"},
		{"long line without a line end", strings.Repeat("x", 1<<20), "header line longer than 4096"},
		{"many headers", strings.Repeat("A: b\r\n", 100), "more than 32 header lines"},
		{"big body", "Content-Length: 1000\r\n\r\n", "over the limit of 100"},
		{"no length", "A: b\r\n\r\n", "without a Content-Length"},
		{"bad length", "Content-Length: -1\r\n\r\n", "bad Content-Length"},
		{"not a header", "hello\r\n\r\n", "not NAME: VALUE"},
	} {
		_, err := read(tc.in, 100)
		if !errors.Is(err, ErrFraming) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want a framing error saying %q", tc.name, err, tc.want)
		}
	}
	for _, in := range []string{"Content-Length: 5\r\n\r\nab", "Content-Le"} {
		if _, err := read(in, 100); err != io.ErrUnexpectedEOF {
			t.Errorf("%q: %v, want io.ErrUnexpectedEOF", in, err)
		}
	}
}

// FuzzReadMessage: any input reads as messages within the limits or ends in
// an error; nothing panics and no body is over the limit.
func FuzzReadMessage(f *testing.F) {
	f.Add([]byte("Content-Length: 2\r\n\r\n{}"))
	f.Add([]byte("content-length:3\nX: y\n\n[1]Content-Length: 0\r\n\r\n"))
	f.Add([]byte("Content-Length: 99999999999999999999\r\n\r\n"))
	f.Add([]byte("Content-Type: x\r\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bufio.NewReaderSize(strings.NewReader(string(data)), 16)
		for i := 0; i < 100; i++ {
			b, err := ReadMessage(r, 64)
			if err != nil {
				return
			}
			if len(b) > 64 {
				t.Fatalf("body of %d bytes over the limit", len(b))
			}
		}
	})
}

package hotspot

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// DefaultAttachTimeout bounds how long Attach waits for the VM's attach
// listener to come up after SIGQUIT when the context has no earlier deadline.
const DefaultAttachTimeout = 30 * time.Second

// ErrRefused is a non-zero status from the VM.
var ErrRefused = errors.New("hotspot: the VM refused the command")

// request encodes an attach request: version "1", the command and exactly
// three arguments, each NUL-terminated.
func request(cmd string, args ...string) ([]byte, error) {
	if len(args) > 3 {
		return nil, fmt.Errorf("hotspot: %s: at most 3 arguments, got %d", cmd, len(args))
	}
	var b bytes.Buffer
	for _, s := range append([]string{"1", cmd}, append(args, "", "", "")[:3]...) {
		if strings.IndexByte(s, 0) >= 0 {
			return nil, fmt.Errorf("hotspot: %s: argument %q holds a NUL byte", cmd, s)
		}
		b.WriteString(s)
		b.WriteByte(0)
	}
	return b.Bytes(), nil
}

// response reads the VM's answer: a status line, then the output.
func response(r io.Reader) (string, error) {
	br := bufio.NewReader(io.LimitReader(r, 16<<20))
	line, err := br.ReadString('\n')
	if err != nil && line == "" {
		return "", fmt.Errorf("hotspot: no reply from the attach listener: %w", err)
	}
	code, cerr := strconv.Atoi(strings.TrimSpace(line))
	rest, _ := io.ReadAll(br)
	out := string(rest)
	if cerr != nil {
		return "", fmt.Errorf("hotspot: reply starts with %q, not a status code", line)
	}
	if code != 0 {
		return out, fmt.Errorf("%w (status %d): %s", ErrRefused, code, strings.TrimSpace(out))
	}
	return out, nil
}

package hotspot

import (
	"strconv"
	"strings"
	"testing"
)

// FuzzResponse: whatever an attach socket sends, response returns an error
// or the output after a status 0, never panics. Seeds: testdata/fuzz/FuzzResponse.
func FuzzResponse(f *testing.F) {
	f.Add([]byte("0\nHeap dump file created [5140237 bytes in 0.031 secs]\n"))
	f.Add([]byte("101\n"))
	f.Add([]byte("-1\nUnable to create /tmp/x: File exists\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := response(strings.NewReader(string(in)))
		status, _, _ := strings.Cut(string(in), "\n")
		if code, cerr := strconv.Atoi(strings.TrimSpace(status)); err == nil && (cerr != nil || code != 0) {
			t.Fatalf("%q accepted as success (output %q)", in, out)
		}
	})
}

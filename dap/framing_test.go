package dap

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"
)

// TestHeaderLineBounded: a header line without an end (issue 12: 256 MiB
// without "\r" took 545 MB) ends the session with a clear error once it
// passes 4096 bytes, however much more the client sends.
func TestHeaderLineBounded(t *testing.T) {
	client, server := net.Pipe()
	defer client.Close()
	go func() {
		line := []byte("Content-Length: " + strings.Repeat("1", 64<<10))
		for i := 0; i < 1<<12; i++ { // 256 MiB if nothing stopped it
			if _, err := client.Write(line); err != nil {
				return
			}
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	err := NewServer(Config{}).ServeConn(ctx, server)
	if err == nil || !strings.Contains(err.Error(), "header line longer than 4096 bytes") {
		t.Fatalf("ServeConn: %v, want an error about the header line", err)
	}
}

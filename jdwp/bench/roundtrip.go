package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

// RoundTripResult compares one-at-a-time round trips (VirtualMachine.IDSizes)
// through the client with the same round trips on a raw socket.
type RoundTripResult struct {
	Client     string  `json:"client"`
	Workload   string  `json:"workload"`
	Items      int     `json:"items"`
	Seconds    float64 `json:"seconds"`
	RawUS      float64 `json:"raw_us"`
	ClientUS   float64 `json:"client_us"`
	OverheadUS float64 `json:"overhead_us"`
}

// JSON returns the result's JSON line.
func (r RoundTripResult) JSON() string {
	b, _ := json.Marshal(r)
	return string(b)
}

// RoundTrip measures n sequential round trips on a raw socket, then n through the
// client, alternating rounds so drift in the VM affects both alike, and reports
// the client's overhead per round trip (median of rounds).
func RoundTrip(ctx context.Context, addr string, n int, opts *jdwp.Options) (RoundTripResult, error) {
	const rounds = 5
	var raw, cli []time.Duration
	for i := 0; i < rounds; i++ {
		d, err := rawRoundTrips(ctx, addr, n)
		if err != nil {
			return RoundTripResult{}, fmt.Errorf("raw socket: %w", err)
		}
		raw = append(raw, d)
		d, err = clientRoundTrips(ctx, addr, n, opts)
		if err != nil {
			return RoundTripResult{}, fmt.Errorf("client: %w", err)
		}
		cli = append(cli, d)
	}
	r, c := median(raw), median(cli)
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(n) / 1e3 }
	return RoundTripResult{
		Client: "ddmbridge", Workload: "roundtrip", Items: n, Seconds: roundSeconds(c),
		RawUS: round2(per(r)), ClientUS: round2(per(c)), OverheadUS: round2(per(c) - per(r)),
	}, nil
}

func round2(f float64) float64 { return float64(int64(f*100+0.5)) / 100 }

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s[len(s)/2]
}

func rawRoundTrips(ctx context.Context, addr string, n int) (time.Duration, error) {
	var nc net.Conn
	var err error
	deadline := time.Now().Add(10 * time.Second)
	for {
		var d net.Dialer
		nc, err = d.DialContext(ctx, "tcp", addr)
		if err == nil {
			if _, err = io.WriteString(nc, jdwp.HandshakeString); err == nil {
				buf := make([]byte, len(jdwp.HandshakeString))
				if _, err = io.ReadFull(nc, buf); err == nil {
					break
				}
			}
			nc.Close()
		}
		if time.Now().After(deadline) {
			return 0, err
		}
		if err := retryPause(ctx); err != nil {
			return 0, err
		}
	}
	defer nc.Close()
	stop := context.AfterFunc(ctx, func() { nc.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	r := bufio.NewReader(nc)
	start := time.Now()
	for i := 0; i < n; i++ {
		p := jdwp.Packet{ID: uint32(i + 1), CmdSet: jdwp.SetVirtualMachine, Cmd: 7}
		if err := jdwp.WritePacket(nc, &p); err != nil {
			return 0, err
		}
		if _, err := jdwp.ReadPacket(r, 0); err != nil {
			return 0, err
		}
	}
	d := time.Since(start)
	// Dispose politely so the VM is ready for the next debugger at once.
	jdwp.WritePacket(nc, &jdwp.Packet{ID: uint32(n + 1), CmdSet: jdwp.SetVirtualMachine, Cmd: 6})
	jdwp.ReadPacket(r, 0)
	return d, nil
}

func clientRoundTrips(ctx context.Context, addr string, n int, opts *jdwp.Options) (time.Duration, error) {
	c, err := dialRetry(ctx, addr, opts)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	start := time.Now()
	for i := 0; i < n; i++ {
		if _, err := c.Command(ctx, jdwp.CmdVMIDSizes.Set, jdwp.CmdVMIDSizes.Cmd, nil); err != nil {
			return 0, err
		}
	}
	d := time.Since(start)
	return d, c.Dispose(ctx)
}

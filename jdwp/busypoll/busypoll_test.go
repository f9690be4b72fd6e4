package busypoll

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"sync/atomic"
	"testing"
	"time"
)

// pair returns the two ends of a loopback TCP connection.
func pair(t *testing.T) (a, b net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	acc := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		acc <- c
	}()
	a, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	b = <-acc
	if b == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

func writeAfter(t *testing.T, c net.Conn, d time.Duration, data string) {
	go func() {
		time.Sleep(d)
		if _, err := io.WriteString(c, data); err != nil {
			t.Error(err)
		}
	}()
}

func TestHotReaderPollsInsteadOfParking(t *testing.T) {
	a, b := pair(t)
	r := NewReader(a, time.Second, nil)
	writeAfter(t, b, 5*time.Millisecond, "hello")
	buf := make([]byte, 16)
	n, err := r.Read(buf)
	if err != nil || string(buf[:n]) != "hello" {
		t.Fatalf("Read = %q, %v", buf[:n], err)
	}
	if r.polled.Load() != 1 || r.parks.Load() != 0 {
		t.Fatalf("polled %d, parked %d: want the data polled for", r.polled.Load(), r.parks.Load())
	}
}

func TestColdReaderParks(t *testing.T) {
	a, b := pair(t)
	r := NewReader(a, time.Second, func() bool { return false })
	writeAfter(t, b, 5*time.Millisecond, "x")
	buf := make([]byte, 4)
	if n, err := r.Read(buf); err != nil || string(buf[:n]) != "x" {
		t.Fatalf("Read = %q, %v", buf[:n], err)
	}
	if r.polled.Load() != 0 || r.parks.Load() != 1 {
		t.Fatalf("polled %d, parked %d: want a plain parked read", r.polled.Load(), r.parks.Load())
	}
}

func TestSpinTimeIsBounded(t *testing.T) {
	a, b := pair(t)
	r := NewReader(a, 2*time.Millisecond, nil)
	writeAfter(t, b, 100*time.Millisecond, "late")
	buf := make([]byte, 8)
	if n, err := r.Read(buf); err != nil || string(buf[:n]) != "late" {
		t.Fatalf("Read = %q, %v", buf[:n], err)
	}
	if r.parks.Load() != 1 {
		t.Fatalf("parked %d times: a reader must stop polling after its spin time", r.parks.Load())
	}
}

// Wake on a parked reader makes it poll, and leaves no deadline behind: the
// next read waits as long as it takes.
func TestWakeHandsTheTurn(t *testing.T) {
	a, b := pair(t)
	var hot atomic.Bool
	r := NewReader(a, time.Second, hot.Load)
	got := readAsync(r)
	waitFor(t, func() bool { return r.parked.Load() })
	hot.Store(true)
	r.Wake()
	waitFor(t, func() bool { return !r.parked.Load() }) // polling now
	io.WriteString(b, "turn")
	if s := <-got; s != "turn" {
		t.Fatalf("Read = %q", s)
	}
	if r.polled.Load() != 1 {
		t.Fatalf("polled %d: want the woken reader to poll for its data", r.polled.Load())
	}

	hot.Store(false)
	got = readAsync(r)
	select {
	case s := <-got:
		t.Fatalf("a read with nothing to read returned %q: a deadline was left behind", s)
	case <-time.After(50 * time.Millisecond):
	}
	io.WriteString(b, "later")
	if s := <-got; s != "later" {
		t.Fatalf("Read = %q", s)
	}
}

func TestEOFAndClose(t *testing.T) {
	a, b := pair(t)
	r := NewReader(a, time.Second, nil)
	io.WriteString(b, "bye")
	b.Close()
	data, err := io.ReadAll(r)
	if err != nil || string(data) != "bye" {
		t.Fatalf("ReadAll = %q, %v", data, err)
	}

	c, _ := pair(t)
	r = NewReader(c, time.Second, func() bool { return false })
	done := make(chan error, 1)
	go func() {
		_, err := r.Read(make([]byte, 4))
		done <- err
	}()
	waitFor(t, func() bool { return r.parked.Load() })
	c.Close()
	if err := <-done; !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Read on a closed conn = %v, want net.ErrClosed", err)
	}
	if _, err := NewReader(c, time.Second, nil).Read(make([]byte, 4)); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("polling Read on a closed conn = %v, want net.ErrClosed", err)
	}
}

func TestPipesAndZeroSpinReadPlainly(t *testing.T) {
	p1, p2 := net.Pipe()
	defer p1.Close()
	defer p2.Close()
	r := NewReader(p1, time.Second, nil)
	go io.WriteString(p2, "pipe")
	buf := make([]byte, 8)
	if n, err := r.Read(buf); err != nil || string(buf[:n]) != "pipe" {
		t.Fatalf("Read = %q, %v", buf[:n], err)
	}
	r.Wake() // no-op
	a, b := pair(t)
	r = NewReader(a, 0, nil)
	go io.WriteString(b, "zero")
	if n, err := r.Read(buf); err != nil || string(buf[:n]) != "zero" {
		t.Fatalf("Read = %q, %v", buf[:n], err)
	}
	if r.polled.Load() != 0 {
		t.Fatal("a zero spin time polled")
	}
}

// Turns flipping and Wakes racing the reader lose no byte and leave no
// spurious error.
func TestWakeRacesLoseNothing(t *testing.T) {
	a, b := pair(t)
	var hot atomic.Bool
	r := NewReader(a, 50*time.Microsecond, hot.Load)
	const total = 1 << 20
	want := make([]byte, total)
	for i := range want {
		want[i] = byte(rand.N(256))
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			hot.Store(rand.N(2) == 0)
			r.Wake()
			time.Sleep(time.Duration(rand.N(30)) * time.Microsecond)
		}
	}()
	go func() {
		for off := 0; off < total; {
			n := min(1+rand.N(4096), total-off)
			if _, err := b.Write(want[off : off+n]); err != nil {
				t.Error(err)
				return
			}
			off += n
			if rand.N(8) == 0 {
				time.Sleep(time.Duration(rand.N(200)) * time.Microsecond)
			}
		}
	}()
	got := make([]byte, 0, total)
	buf := make([]byte, 1500)
	for len(got) < total {
		n, err := r.Read(buf)
		if err != nil {
			t.Fatalf("after %d bytes: %v", len(got), err)
		}
		got = append(got, buf[:n]...)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("bytes lost or reordered")
	}
	t.Logf("%d reads polled, %d parked", r.polled.Load(), r.parks.Load())
}

// readAsync reads once from r on another goroutine and sends what it read
// (or the error).
func readAsync(r *Reader) <-chan string {
	got := make(chan string, 1)
	go func() {
		buf := make([]byte, 8)
		n, err := r.Read(buf)
		if err != nil {
			got <- "error: " + err.Error()
			return
		}
		got <- string(buf[:n])
	}()
	return got
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
		time.Sleep(100 * time.Microsecond)
	}
}

package linkproxy

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// linked starts BenchTarget behind a proxy that delays each packet by delay
// each way, and returns them with a context bounding the test. A delay of
// 100 ms is far above any scheduling stall of a busy machine, so a burst
// sent at once is never split by a reply arriving in between.
func linked(t *testing.T, delay time.Duration) (*jvmtest.JVM, *Proxy, context.Context) {
	t.Helper()
	vm := jvmtest.StartBenchTargetT(t, jvmtest.Options{})
	p, err := Start(vm.Addr, delay)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	t.Cleanup(cancel)
	return vm, p, ctx
}

// dial attaches a JDWP client through the proxy.
func dial(t *testing.T, ctx context.Context, p *Proxy) *jdwp.Conn {
	t.Helper()
	c, err := jdwp.Dial(ctx, p.Addr(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestCountsSequentialRoundTrips drives a real HotSpot VM through the proxy:
// commands sent together are one round trip, commands each waiting for the
// previous reply are one each, and the handshake plus IDSizes of an attach
// are two.
func TestCountsSequentialRoundTrips(t *testing.T) {
	_, p, ctx := linked(t, 100*time.Millisecond)

	p.Mark()
	c := dial(t, ctx, p)
	if _, err := c.Command(ctx, jdwp.CmdVMIDSizes.Set, jdwp.CmdVMIDSizes.Cmd, nil); err != nil {
		t.Fatal(err)
	}
	if s := p.Stats(); s.Sequential != 2 || s.Commands != 2 {
		t.Errorf("handshake then IDSizes: %+v, want 2 commands in 2 sequential round trips", s)
	}

	p.Mark()
	var wg sync.WaitGroup
	calls := make([]*jdwp.Call, 5)
	for i := range calls {
		var err error
		calls[i], err = c.Start(jdwp.CmdVMVersion, nil)
		if err != nil {
			t.Fatal(err)
		}
	}
	c.Flush(ctx)
	for _, call := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case <-call.Done():
			case <-ctx.Done():
			}
		}()
	}
	wg.Wait()
	if s := p.Stats(); s.Sequential != 1 || s.Commands != 5 {
		t.Errorf("five commands sent at once: %+v, want 5 commands in 1 round trip", s)
	}

	p.Mark()
	start := time.Now()
	for range 3 {
		if _, err := c.Command(ctx, jdwp.CmdVMVersion.Set, jdwp.CmdVMVersion.Cmd, nil); err != nil {
			t.Fatal(err)
		}
	}
	s := p.Stats()
	if s.Sequential != 3 || s.Commands != 3 {
		t.Errorf("three commands one after the other: %+v, want 3 sequential round trips", s)
	}
	if took := time.Since(start); took < 3*2*p.Delay() {
		t.Errorf("three round trips took %v, less than 3 × 2 × %v: the delay is not applied", took, p.Delay())
	}
	if s.ToVM == 0 || s.FromVM == 0 {
		t.Errorf("no bytes counted: %+v", s)
	}
}

// TestPreloadIsOneRoundTrip: a connection's Preload asks for the id sizes,
// version and capabilities in one round trip, and keeps them: asking for
// them afterwards costs none.
func TestPreloadIsOneRoundTrip(t *testing.T) {
	_, p, ctx := linked(t, 100*time.Millisecond)
	c := dial(t, ctx, p)
	p.Mark()
	if err := c.Preload(ctx); err != nil {
		t.Fatal(err)
	}
	if s := p.Stats(); s.Sequential != 1 || s.Commands != 3 {
		t.Errorf("Preload: %+v, want 3 commands in 1 round trip", s)
	}
	p.Mark()
	sizes, err := c.IDSizes(ctx)
	if err != nil || sizes.ObjectID != 8 {
		t.Errorf("IDSizes after Preload: %+v, %v", sizes, err)
	}
	v, err := c.Version(ctx)
	if err != nil || v.JDWPMajor < 1 || v.VMName == "" {
		t.Errorf("Version after Preload: %+v, %v", v, err)
	}
	caps, err := c.Capabilities(ctx)
	if err != nil || !caps.CanGetBytecodes {
		t.Errorf("Capabilities after Preload: %+v, %v (HotSpot can get bytecodes)", caps, err)
	}
	if s := p.Stats(); s.Commands != 0 {
		t.Errorf("asked again after Preload: %+v", s)
	}
}

// TestPreloadLeavesWithTheHandshake: a connection made with
// Options.Preload sends the id sizes, version and capabilities commands in
// the handshake's write, and a real HotSpot VM answers them: the attach and
// Preload are one round trip, and asking for them afterwards costs none.
func TestPreloadLeavesWithTheHandshake(t *testing.T) {
	_, p, ctx := linked(t, 100*time.Millisecond)
	p.Mark()
	c, err := jdwp.Dial(ctx, p.Addr(), &jdwp.Options{Preload: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	// Asked before Preload: waits for the answer on its way, asks nothing.
	sizes, err := c.IDSizes(ctx)
	if err != nil || sizes.ObjectID != 8 {
		t.Errorf("IDSizes: %+v, %v", sizes, err)
	}
	if err := c.Preload(ctx); err != nil {
		t.Fatal(err)
	}
	v, err := c.Version(ctx)
	if err != nil || v.JDWPMajor < 1 || v.VMName == "" {
		t.Errorf("Version: %+v, %v", v, err)
	}
	caps, err := c.Capabilities(ctx)
	if err != nil || !caps.CanGetBytecodes {
		t.Errorf("Capabilities: %+v, %v (HotSpot can get bytecodes)", caps, err)
	}
	if s := p.Stats(); s.Sequential != 1 || s.Commands != 4 {
		t.Errorf("handshake and Preload: %+v, want the handshake and 3 commands in 1 round trip", s)
	}
	// The connection goes on as any other.
	if _, err := c.AllThreads(ctx); err != nil {
		t.Errorf("AllThreads after the preloaded handshake: %v", err)
	}
}

// TestDeadVMEndsTheLink: a VM that goes away closes the debugger's side
// instead of leaving it hanging.
func TestDeadVMEndsTheLink(t *testing.T) {
	vm, p, ctx := linked(t, 10*time.Millisecond)
	c := dial(t, ctx, p)
	vm.Close()
	select {
	case <-c.Done():
	case <-ctx.Done():
		t.Fatal("the debugger's connection stayed open after the VM died")
	}
}

// TestConnSeesTheLinksRoundTrip: a client's estimate of the round trip
// (jdwp.Conn.RoundTrip, what the debugger layer prefetches by) is at least
// the link's through a slow link, and 0 before any reply.
func TestConnSeesTheLinksRoundTrip(t *testing.T) {
	const delay = 25 * time.Millisecond
	_, p, ctx := linked(t, delay)
	c := dial(t, ctx, p)
	for range 3 {
		if _, err := c.Command(ctx, jdwp.CmdVMIDSizes.Set, jdwp.CmdVMIDSizes.Cmd, nil); err != nil {
			t.Fatal(err)
		}
	}
	if rt := c.RoundTrip(); rt < 2*delay {
		t.Errorf("through a link of %v each way: round trip %v, want at least %v", delay, rt, 2*delay)
	}
}

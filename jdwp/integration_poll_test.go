package jdwp_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

// A connection whose reader polls while calls are in flight (SpinWait)
// gets every reply right: calls one at a time, calls from many goroutines at
// once, and calls after pauses longer than the spin time.
func TestPollingConn(t *testing.T) {
	vm := startTargetVM(t)
	o := connOptions(t)
	o.SpinWait = 200 * time.Microsecond
	c, err := jdwp.Dial(t.Context(), vm.Addr, o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := t.Context()
	v, err := c.Version(ctx)
	if err != nil || v.JDWPMajor < 17 || !strings.Contains(v.VMName, "VM") {
		t.Fatalf("Version = %+v, %v", v, err)
	}
	threads, err := c.AllThreads(ctx)
	if err != nil || len(threads) == 0 {
		t.Fatalf("AllThreads = %d threads, %v", len(threads), err)
	}
	names := map[jdwp.ThreadID]string{}
	for i := 0; i < 200; i++ {
		th := threads[i%len(threads)]
		name, err := c.ThreadName(ctx, th)
		if err != nil {
			t.Fatalf("ThreadName #%d: %v", i, err)
		}
		if prev, ok := names[th]; ok && prev != name {
			t.Fatalf("thread %v named %q, then %q", th, prev, name)
		}
		names[th] = name
		if i%40 == 0 {
			time.Sleep(time.Millisecond) // let the reader park between calls
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				th := threads[(g+i)%len(threads)]
				name, err := c.ThreadName(ctx, th)
				if err != nil || name != names[th] {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("a concurrent call failed or got another call's reply: %v", err)
	}
}

package rpc

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/ddmbridge/ddmbridge/ddm/simvm"
)

// TestRPCListOrderedWithNotifications: a client that keeps its VM list from
// vms/list answers and vms/added / vms/changed / vms/removed notifications,
// applied in the order they arrive, ends with the monitor's list, although
// VMs come and go while it asks. A vms/list answer computed before a VM was
// added must not arrive after that VM's vms/added, nor a vms/changed after
// its vms/removed.
func TestRPCListOrderedWithNotifications(t *testing.T) {
	t.Parallel()
	o := testOptions(t, 0, 0)
	o.Logger = o.Logger.Level(5)
	m := startMonitor(t, o)
	addr := startRPC(t, m, ServerOptions{})
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()

	nc, err := net.Dial("unix", strings.TrimPrefix(addr, "unix:"))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	var wmu sync.Mutex
	nextID := 0
	ask := func() {
		wmu.Lock()
		defer wmu.Unlock()
		nextID++
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nextID, "method": "vms/list"})
		fmt.Fprintf(nc, "Content-Length: %d\r\n\r\n%s", len(b), b)
	}

	// The client's model, updated strictly in arrival order.
	var mu sync.Mutex
	have := map[string]bool{}
	answers := 0
	go func() {
		r := bufio.NewReader(nc)
		for {
			var msg struct {
				ID     *int            `json:"id"`
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
				Result json.RawMessage `json:"result"`
			}
			if (jsonrpc2.VSCodeObjectCodec{}).ReadObject(r, &msg) != nil {
				return
			}
			mu.Lock()
			switch {
			case msg.ID != nil:
				var l []VMInfo
				json.Unmarshal(msg.Result, &l)
				have = map[string]bool{}
				for _, v := range l {
					have[v.Address] = true
				}
				answers++
			case msg.Method == "vms/added" || msg.Method == "vms/changed" || msg.Method == "vms/removed":
				// As the extension's VMStore: vms/changed of a VM not
				// listed lists it.
				var v VMInfo
				json.Unmarshal(msg.Params, &v)
				have[v.Address] = msg.Method != "vms/removed"
				if !have[v.Address] {
					delete(have, v.Address)
				}
			}
			mu.Unlock()
		}
	}()

	// VMs come and go while the client asks for the list.
	stop := make(chan struct{})
	var asking sync.WaitGroup
	asking.Add(1)
	go func() {
		defer asking.Done()
		for {
			select {
			case <-stop:
				return
			default:
				ask()
				time.Sleep(200 * time.Microsecond)
			}
		}
	}()
	var sims []*simvm.VM
	var addrs []string
	for i := 0; i < 12; i++ {
		sv, err := simvm.New(simvm.Options{AppName: fmt.Sprintf("com.example.order%d", i), Tick: time.Hour, GCInterval: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go sv.Serve(ln)
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Connect(ctx, c, ln.Addr().String()); err != nil {
			t.Fatal(err)
		}
		sims = append(sims, sv)
		addrs = append(addrs, ln.Addr().String())
		if i%3 == 2 { // and some leave again
			sims[i-1].Close()
			waitGone(t, m, addrs[i-1], 5*time.Second)
		}
	}
	time.Sleep(50 * time.Millisecond)
	close(stop)
	asking.Wait()
	for _, sv := range sims {
		defer sv.Close()
	}

	want := func() []string {
		var out []string
		for _, v := range m.VMs() {
			out = append(out, v.Address)
		}
		sort.Strings(out)
		return out
	}
	got := func() []string {
		mu.Lock()
		defer mu.Unlock()
		var out []string
		for a := range have {
			out = append(out, a)
		}
		sort.Strings(out)
		return out
	}
	// Without asking again, the notifications still in flight settle it.
	deadline := time.Now().Add(5 * time.Second)
	for strings.Join(got(), ",") != strings.Join(want(), ",") {
		if time.Now().After(deadline) {
			t.Fatalf("client model %v, monitor %v", got(), want())
		}
		time.Sleep(20 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if answers == 0 {
		t.Fatal("no vms/list answer arrived")
	}
}

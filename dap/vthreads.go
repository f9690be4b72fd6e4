package dap

import (
	"context"
	"fmt"
	"sync"

	"github.com/ddmbridge/ddmbridge/dap/ext"
	"github.com/ddmbridge/ddmbridge/jdwp"
	godap "github.com/google/go-dap"
)

// The virtualThreads request pages through the VM's virtual threads
// grouped by identical stack (for a virtual threads view: the threads
// request lists the met ones alone, see threads). Its messages are package
// ext's.

type (
	virtualThreadsRequest = ext.VirtualThreadsRequest
	VirtualThreadsBody    = ext.VirtualThreadsBody
)

// maxGroupThreads bounds the threads a group names.
const maxGroupThreads = 20

func (s *session) virtualThreads(ctx context.Context, r *virtualThreadsRequest) (VirtualThreadsBody, error) {
	d := s.dbg
	list, err := d.t.VirtualThreadsAll(ctx)
	if err != nil {
		return VirtualThreadsBody{}, err
	}
	start, count := max(r.Arguments.Start, 0), r.Arguments.Count
	if count <= 0 {
		count = 1000
	}
	total := len(list.Threads)
	start = min(start, total)
	page := list.Threads[start:min(start+count, total)]
	groups, err := d.t.GroupByStack(ctx, page)
	if err != nil {
		return VirtualThreadsBody{}, err
	}
	body := VirtualThreadsBody{Total: total, Start: start, Count: len(page), Listed: list.Listed, Groups: make([]ext.VirtualThreadGroup, len(groups))}
	var mu sync.Mutex
	frames := map[jdwp.Location]ext.VirtualThreadFrame{}
	frameOf := func(loc jdwp.Location) ext.VirtualThreadFrame {
		mu.Lock()
		f, ok := frames[loc]
		mu.Unlock()
		if ok {
			return f
		}
		sf, err := d.describeFrame(ctx, loc)
		if err != nil {
			f = ext.VirtualThreadFrame{Name: fmt.Sprintf("<unknown frame: %v>", err)}
		} else {
			f = ext.VirtualThreadFrame{Name: sf.Name, Line: sf.Line, Source: sf.Source}
		}
		mu.Lock()
		frames[loc] = f
		mu.Unlock()
		return f
	}
	err = parallel(len(groups), func(i int) error {
		g := groups[i]
		out := ext.VirtualThreadGroup{Count: len(g.Threads), Threads: []godap.Thread{}, Frames: make([]ext.VirtualThreadFrame, len(g.Frames))}
		for j, loc := range g.Frames {
			out.Frames[j] = frameOf(loc)
		}
		for _, th := range g.Threads[:min(len(g.Threads), maxGroupThreads)] {
			name, err := d.threadName(ctx, th, true)
			if err != nil {
				name = "<exited>"
			}
			out.Threads = append(out.Threads, godap.Thread{Id: d.refs.threads.id(th), Name: name})
		}
		body.Groups[i] = out
		return nil
	})
	return body, err
}

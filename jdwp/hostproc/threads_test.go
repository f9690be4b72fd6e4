package hostproc

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseStat(t *testing.T) {
	k, ok := parseStat("4711 (a (b) c) S 1 4711 4711 0 -1 4194560 100 0 0 0 17 3 0 0 20 0 30 0 123 0 0\n")
	if !ok || k.Comm != "a (b) c" || k.UTime != 17 || k.STime != 3 {
		t.Errorf("parseStat: %+v %v", k, ok)
	}
	if _, ok := parseStat("4711 (x) S 1 2"); ok {
		t.Error("short stat parsed")
	}
}

func TestMatch(t *testing.T) {
	const pid = 100
	tasks := []Task{
		{TID: 100, Comm: "java"}, // primordial: no Java thread
		{TID: 101, Comm: "java", UTime: 5},
		{TID: 102, Comm: "Reference Handl", UTime: 1},
		{TID: 103, Comm: "worker", UTime: 7},
		{TID: 104, Comm: "worker", UTime: 9, STime: 2},
		{TID: 105, Comm: "JDWP Transport "},
	}
	mk := func(names ...string) []*Thread {
		var ts []*Thread
		for _, n := range names {
			ts = append(ts, &Thread{Name: n})
		}
		return ts
	}
	ts := mk("main", "Reference Handler", "worker", "worker", "worker", "gone")
	Match(ts, tasks, pid)
	got := func() string {
		var b strings.Builder
		for _, t := range ts {
			fmt.Fprintf(&b, "%s=%d/%d/%d ", t.Name, t.TID, t.UTime, t.STime)
		}
		return b.String()
	}
	want := "main=101/5/0 Reference Handler=102/1/0 worker=103/7/0 worker=104/9/2 worker=0/0/0 gone=0/0/0 "
	if g := got(); g != want {
		t.Errorf("first match:\n got %s\nwant %s", g, want)
	}
	// The thread that had 104 keeps it when 103 is gone, and gains CPU time.
	tasks[4].UTime = 20
	Match(ts, append(tasks[:3:3], tasks[4:]...), pid)
	want = "main=101/5/0 Reference Handler=102/1/0 worker=0/0/0 worker=104/20/2 worker=0/0/0 gone=0/0/0 "
	if g := got(); g != want {
		t.Errorf("after 103 ended:\n got %s\nwant %s", g, want)
	}
	// Not this JVM's process: nothing matches by its own name.
	ts = mk("main", "Finalizer")
	Match(ts, tasks, pid)
	if g := got(); g != "main=0/0/0 Finalizer=0/0/0 " {
		t.Errorf("foreign process: %s", g)
	}
	// No /proc.
	ts = mk("main", "worker")
	Match(ts, nil, pid)
	if g := got(); g != "main=0/0/0 worker=0/0/0 " {
		t.Errorf("no /proc: %s", g)
	}
}

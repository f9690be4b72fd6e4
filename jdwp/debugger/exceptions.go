package debugger

import (
	"context"
	"fmt"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
)

// Exception breakpoints: rules that say which thrown exceptions stop —
// caught, uncaught or both, by class patterns (an exception matches when
// its class or a superclass matches a pattern and no excluded pattern), and
// by a condition evaluated in the throwing frame; a "never" rule keeps the
// exceptions it matches from stopping at all.

// ExceptionRule is one way an exception can stop the VM.
type ExceptionRule struct {
	Caught, Uncaught bool
	Never            bool // matching exceptions never stop
	Include, Exclude []string
	Cond             Condition // evaluated with Hit.Exception set
	CondText         string
}

// excState is the session's exception rules and the last exception each
// thread stopped on (guarded by Target.mu).
type excState struct {
	req    int32
	rules  []ExceptionRule
	caught map[jdwp.ThreadID]bool // whether last will be caught
	last   map[jdwp.ThreadID]jdwp.TaggedObjectID
}

// SetExceptionRules replaces the exception rules and the request behind
// them.
func (t *Target) SetExceptionRules(ctx context.Context, rules []ExceptionRule) error {
	var caught, uncaught bool
	for _, r := range rules {
		caught = caught || r.Caught
		uncaught = uncaught || r.Uncaught
	}
	t.mu.Lock()
	old := t.bps.exc.req
	t.bps.exc.req = 0
	t.bps.exc.rules = rules
	t.mu.Unlock()
	if old != 0 {
		t.Requests.Clear(ctx, jdwp.EventException, old)
	}
	if !caught && !uncaught {
		return nil
	}
	// An exception that ends a virtual thread is caught by the JDK's
	// virtual thread machinery (VirtualThread.run hands it to the
	// uncaught exception handler): on a VM with virtual threads the
	// uncaught filter asks for caught exceptions too, and onException
	// decides by where the exception ends, as IntelliJ does.
	reqCaught := caught || uncaught && t.VirtualThreads()
	id, err := t.Requests.Set(ctx, jdwp.EventException, stopPolicy, jdwp.ExceptionOnly{Caught: reqCaught, Uncaught: uncaught})
	if err != nil {
		return err
	}
	t.mu.Lock()
	t.bps.exc.req = id
	t.mu.Unlock()
	return nil
}

// LastException is the exception thread last stopped on, and whether it
// will be caught.
func (t *Target) LastException(thread jdwp.ThreadID) (exc jdwp.TaggedObjectID, caught, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	exc, ok = t.bps.exc.last[thread]
	return exc, t.bps.exc.caught[thread], ok
}

// MatchClass matches a binary class name against a pattern: "*", a prefix
// ("com.example.*"), a suffix ("*Exception") or a name; nested classes may
// be written with '.' or '$'.
func MatchClass(pattern, name string) bool {
	dotted := strings.ReplaceAll(name, "$", ".")
	pattern = strings.TrimSpace(pattern)
	switch {
	case pattern == "*":
		return true
	case strings.HasSuffix(pattern, "*"):
		pre := strings.TrimSuffix(pattern, "*")
		return strings.HasPrefix(name, pre) || strings.HasPrefix(dotted, pre)
	case strings.HasPrefix(pattern, "*"):
		suf := strings.TrimPrefix(pattern, "*")
		return strings.HasSuffix(name, suf) || strings.HasSuffix(dotted, suf)
	}
	return pattern == name || pattern == dotted
}

func anyMatch(patterns, names []string) bool {
	for _, p := range patterns {
		for _, n := range names {
			if MatchClass(p, n) {
				return true
			}
		}
	}
	return false
}

// classChain lists the binary names of c and its superclasses.
func (t *Target) classChain(ctx context.Context, c jdwp.ReferenceTypeID) ([]string, error) {
	var out []string
	for c != 0 {
		sig, err := t.VM.Signature(ctx, c)
		if err != nil {
			return nil, err
		}
		out = append(out, javalang.TypeName(sig))
		if c, err = t.VM.Superclass(ctx, c); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// onException decides whether an exception stops: the first rule that
// matches how it is thrown (caught or not), its class and its condition.
func (t *Target) onException(ctx context.Context, e jdwp.Event) *Stop {
	caught := e.CatchLocation.Class != 0 && !t.endsThread(ctx, e.CatchLocation)
	t.mu.Lock()
	rules := t.bps.exc.rules
	t.mu.Unlock()
	wanted := false
	for _, r := range rules {
		wanted = wanted || !r.Never && (r.Caught || !caught)
	}
	if !wanted {
		return nil // a caught exception asked for to see the uncaught ones of virtual threads
	}
	c, _, err := t.VM.ObjectType(ctx, e.Exception.ID)
	if err != nil {
		t.log.Debug().Err(err).Msg("type of a thrown exception")
		return nil
	}
	names, err := t.classChain(ctx, c)
	if err != nil {
		t.log.Debug().Err(err).Msg("superclasses of a thrown exception")
		return nil
	}
	for _, r := range rules {
		if r.Never && anyMatch(r.Include, names) && !anyMatch(r.Exclude, names) {
			return nil
		}
	}
	for _, r := range rules {
		if r.Never || caught && !r.Caught || !caught && !r.Uncaught {
			continue
		}
		if len(r.Include) > 0 && !anyMatch(r.Include, names) || anyMatch(r.Exclude, names) {
			continue
		}
		var failed string
		if r.Cond != nil {
			ok, err := r.Cond.Truth(ctx, Hit{Thread: e.Thread, Location: e.Location, Exception: e.Exception})
			if err != nil {
				failed = fmt.Sprintf("exception breakpoint condition %q failed: %v", r.CondText, err)
				t.fe.Output("console", failed+"\n")
			} else if !ok {
				continue
			}
		}
		t.mu.Lock()
		t.bps.exc.last[e.Thread] = e.Exception
		t.bps.exc.caught[e.Thread] = caught
		t.mu.Unlock()
		name, msg := t.DescribeException(ctx, e.Exception.ID)
		text := name
		if msg != "" {
			text += ": " + msg
		}
		if failed != "" {
			text = failed
		}
		kind := "uncaught"
		if caught {
			kind = "caught"
		}
		return &Stop{Reason: "exception", Thread: e.Thread, Description: "Paused on " + kind + " exception", Text: text}
	}
	return nil
}

// threadEnders are the classes whose handlers catch what ends a thread
// and hand it to the uncaught exception handler: an exception caught
// there is uncaught to the user.
var threadEnders = map[string]bool{"Ljava/lang/VirtualThread;": true, "Ljava/lang/ThreadBuilders$BoundVirtualThread;": true}

// endsThread reports whether an exception caught at catchLoc ends its
// thread (see threadEnders).
func (t *Target) endsThread(ctx context.Context, catchLoc jdwp.Location) bool {
	if !t.VirtualThreads() {
		return false
	}
	sig, err := t.VM.Signature(ctx, catchLoc.Class)
	return err == nil && threadEnders[sig]
}

// DescribeException returns an exception's class name and detail message
// (mirror.VM.ExceptionText: no method runs).
func (t *Target) DescribeException(ctx context.Context, exc jdwp.ObjectID) (string, string) {
	return t.VM.ExceptionText(ctx, exc)
}

package bridge

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge/adb"
	"github.com/ddmbridge/ddmbridge/internal/logcat"
)

// An Android app's log: the monitor follows its device's logcat filtered by
// the app's pid, follows the app through restarts (a new pid of the same
// process on the same device), and hands the lines over in batches. It is
// bounded: lines wait in a queue of at most maxLogQueued lines and
// maxLogQueuedBytes bytes; beyond that they are dropped and counted, and a
// slow reader of the batches never slows the device's stream, the monitor,
// or a debugger.

// LogFilter selects the lines a logcat subscription is given.
type LogFilter = logcat.Filter

// LogBatch is one batch of an app's log lines: the vm/logcat notification.
type LogBatch = logcat.Batch

const (
	maxLogQueued      = 8192    // lines waiting for the reader
	maxLogQueuedBytes = 4 << 20 // their bytes
	maxLogBatch       = 1000    // lines in one batch
	logBatchEvery     = 50 * time.Millisecond
	logRetry          = time.Second // before following again a stream that ended
)

// logQueue is the bounded queue between a device's stream and the reader.
type logQueue struct {
	mu      sync.Mutex
	lines   []adb.LogLine
	bytes   int
	dropped int64
	pid     int
	wake    chan struct{} // cap 1
}

func (q *logQueue) push(l adb.LogLine) {
	size := len(l.Tag) + len(l.Message) + 64
	q.mu.Lock()
	if len(q.lines) >= maxLogQueued || q.bytes+size > maxLogQueuedBytes {
		q.dropped++
		q.mu.Unlock()
		return
	}
	q.lines = append(q.lines, l)
	q.bytes += size
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *logQueue) setPID(pid int) {
	q.mu.Lock()
	q.pid = pid
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// take returns up to maxLogBatch lines and the drops before them.
func (q *logQueue) take(id string) (LogBatch, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := min(len(q.lines), maxLogBatch)
	b := LogBatch{ID: id, PID: q.pid, Lines: slices.Clone(q.lines[:n]), Dropped: q.dropped}
	for _, l := range b.Lines {
		q.bytes -= len(l.Tag) + len(l.Message) + 64
	}
	q.lines = slices.Delete(q.lines, 0, n)
	if len(q.lines) == 0 && cap(q.lines) > 4*maxLogBatch {
		q.lines = nil // give a flood's backing array back
	}
	q.dropped = 0
	return b, n > 0 || b.Dropped > 0
}

// ErrNoLogcat is returned (wrapped) for a VM whose log cannot be followed:
// not on an adb device.
var ErrNoLogcat = logcat.ErrNoDeviceLog

// FollowLog is Logcat for a DAP session (package dap's LogFollower).
func (m *Monitor) FollowLog(ctx context.Context, target string, f LogFilter, deliver func(LogBatch)) error {
	_, err := m.Logcat(ctx, target, f, deliver, nil)
	return err
}

// LogcatID is the id under which Logcat follows the app behind target
// (the VM's id, or a process the device lists), to stop it by.
func (m *Monitor) LogcatID(target string) (string, error) {
	t, err := m.logTarget(target)
	return t.id, err
}

// logTarget is what a subscription follows: a process on a device.
type logTarget struct {
	id, serial, process string
	pid                 int
}

func (m *Monitor) logTarget(target string) (logTarget, error) {
	var info VMInfo
	if v, err := m.VM(target); err == nil {
		info = v.Info()
	} else {
		found := false
		for _, e := range m.VMs() { // a process the device lists, not connected
			if e.ID == target {
				info, found = e, true
			}
		}
		if !found {
			return logTarget{}, err
		}
	}
	if info.Serial == "" || m.adb == nil {
		return logTarget{}, fmt.Errorf("VM %s runs on this host, not on a device: %w (its output is the process's own stdout and stderr)", info.ID, ErrNoLogcat)
	}
	if info.PID <= 0 {
		return logTarget{}, fmt.Errorf("VM %s: its pid on the device is not known, so its log cannot be filtered", info.ID)
	}
	return logTarget{id: info.ID, serial: info.Serial, process: processName(info), pid: info.PID}, nil
}

// processName is how a device VM's process is known across restarts.
func processName(info VMInfo) string {
	if info.Process != "" {
		return info.Process
	}
	return info.Name
}

// Logcat follows the log of the app behind target (a VM id, name or
// address as VM takes) until ctx ends: its lines that pass f go to deliver
// in batches, one call at a time, in order; after the app restarts (a new
// pid of the same process on the same device) its new pid's lines follow.
// deliver may be slow: lines then queue up to a bound and are dropped
// beyond it, counted in the next batch. Logcat returns once the
// subscription is set up; ended is called (if not nil) when it stops.
func (m *Monitor) Logcat(ctx context.Context, target string, f LogFilter, deliver func(LogBatch), ended func()) (LogBatch, error) {
	if err := f.Check(); err != nil {
		return LogBatch{}, err
	}
	t, err := m.logTarget(target)
	if err != nil {
		return LogBatch{}, err
	}
	q := &logQueue{wake: make(chan struct{}, 1), pid: t.pid}
	events, unsub := m.Subscribe()
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // the reader: batches, paced
		defer wg.Done()
		for {
			select {
			case <-q.wake:
			case <-ctx.Done():
				return
			}
			select { // let a batch fill
			case <-time.After(logBatchEvery):
			case <-ctx.Done():
				return
			}
			for {
				b, any := q.take(t.id)
				if !any {
					break
				}
				deliver(b)
				if ctx.Err() != nil {
					return
				}
			}
		}
	}()
	go func() {
		defer wg.Done()
		defer unsub()
		m.followLog(ctx, t, f, q, events)
	}()
	go func() {
		wg.Wait()
		cancel()
		if ended != nil {
			ended()
		}
	}()
	return LogBatch{ID: t.id, PID: t.pid, Lines: []adb.LogLine{}}, nil
}

// followLog runs the device's logcat for t's pid, again with the new pid
// when the process restarts, and after a stream that ended, until ctx ends.
func (m *Monitor) followLog(ctx context.Context, t logTarget, f LogFilter, q *logQueue, events <-chan Event) {
	log := m.log.With().Str("vm", t.id).Str("serial", t.serial).Str("process", t.process).Logger()
	pid := t.pid
	opt := adb.LogcatOptions{PID: pid, Tail: 200} // the app's recent lines first
	var mu sync.Mutex
	last, atLast := "", 0 // the last line's time, and how many lines had it
	for {
		sctx, stop := context.WithCancel(ctx)
		done := make(chan error, 1)
		skip := atLast // a retry with -T TIME repeats the lines of that millisecond
		go func() {
			done <- m.adb.c.Logcat(sctx, t.serial, opt, func(l adb.LogLine) {
				mu.Lock()
				if skip > 0 && l.Time == last {
					skip--
					mu.Unlock()
					return
				}
				skip = 0
				if l.Time == last {
					atLast++
				} else {
					last, atLast = l.Time, 1
				}
				mu.Unlock()
				if f.Pass(l) {
					q.push(l)
				}
			})
		}()
		newPID, ended := 0, false
		for newPID == 0 && !ended {
			select {
			case e, ok := <-events:
				if !ok {
					stop()
					<-done
					return
				}
				if (e.Kind == EventAdded || e.Kind == EventChanged) && e.VM.Serial == t.serial && processName(e.VM) == t.process &&
					e.VM.PID > 0 && e.VM.PID != pid {
					newPID = e.VM.PID
				}
			case err := <-done:
				if ctx.Err() == nil {
					log.Debug().Err(err).Msg("logcat stream ended; following again")
				}
				ended = true
			case <-ctx.Done():
				stop()
				<-done
				return
			}
		}
		stop()
		if !ended {
			<-done
		}
		mu.Lock()
		since := last
		mu.Unlock()
		switch {
		case newPID != 0:
			log.Info().Int("was", pid).Int("pid", newPID).Msg("the app restarted: following its new process's log")
			pid = newPID
			q.setPID(pid)
			opt = adb.LogcatOptions{PID: pid, Tail: maxLogQueued} // all of the new process's lines
			atLast = 0
		case since != "":
			opt = adb.LogcatOptions{PID: pid, Since: since}
			select {
			case <-time.After(logRetry):
			case <-ctx.Done():
				return
			}
		default:
			select {
			case <-time.After(logRetry):
			case <-ctx.Done():
				return
			}
		}
	}
}

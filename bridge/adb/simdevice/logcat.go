package simdevice

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge/adb"
)

// The device's log, as logd keeps it: one bounded buffer (the oldest lines
// go first), read by `logcat` through the shell service in adbd's output
// (threadtime), filtered by --pid, started by -T (a count or a time) and
// followed until the stream closes. A reader that falls behind loses the
// lines the buffer dropped meanwhile, as logd's readers do.

// maxLogLines bounds the device's log buffer.
const maxLogLines = 16384

// systemPID is the pid the simulated system_server logs as.
const systemPID = 600

type logEntry struct {
	at   time.Time
	line adb.LogLine
}

// deviceLog is the log buffer: a ring of entries numbered from 0.
type deviceLog struct {
	mu    sync.Mutex
	ring  []logEntry
	next  uint64        // the number of the next entry
	wake  chan struct{} // closed and replaced on every new entry
	stop  chan struct{} // closed when the device closes
	once  sync.Once
	ticks sync.WaitGroup
}

func (l *deviceLog) init() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.wake == nil {
		l.wake, l.stop = make(chan struct{}), make(chan struct{})
	}
}

func (l *deviceLog) close() {
	l.init()
	l.once.Do(func() { close(l.stop) })
	l.ticks.Wait()
}

// Log appends a line to the device's log, as process pid's thread tid
// would log it (level one of V D I W E F; the time is now).
func (d *Device) Log(pid, tid int, level, tag, msg string) {
	l := &d.logs
	l.init()
	now := time.Now()
	e := logEntry{at: now, line: adb.LogLine{Time: now.Format(adb.LogTimeLayout), PID: pid, TID: tid, Level: level, Tag: tag, Message: msg}}
	l.mu.Lock()
	if len(l.ring) < maxLogLines {
		l.ring = append(l.ring, e)
	} else {
		l.ring[l.next%maxLogLines] = e
	}
	l.next++
	close(l.wake)
	l.wake = make(chan struct{})
	l.mu.Unlock()
}

// from returns the entries numbered n and after that the buffer still
// holds (up to max), the number after the last, and the channel closed on
// the next entry.
func (l *deviceLog) from(n uint64, max int) ([]logEntry, uint64, chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	first := l.next - uint64(len(l.ring))
	n = max64(n, first)
	var out []logEntry
	for ; n < l.next && len(out) < max; n++ {
		out = append(out, l.ring[n%maxLogLines])
	}
	return out, n, l.wake
}

func max64(a, b uint64) uint64 {
	if a > b {
		return a
	}
	return b
}

// startAt is where a reader starting with -T begins: the last count
// entries of pid (of all with 0; logd counts what the filter passes), or
// the first entry at or after a threadtime time (this year).
func (l *deviceLog) startAt(count, pid int, since time.Time) uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	first := l.next - uint64(len(l.ring))
	if !since.IsZero() {
		for n := first; n < l.next; n++ {
			if !l.ring[n%maxLogLines].at.Before(since) {
				return n
			}
		}
		return l.next
	}
	n := l.next
	for ; n > first && count > 0; n-- {
		if e := l.ring[(n-1)%maxLogLines]; pid == 0 || e.line.PID == pid {
			count--
		}
	}
	return n
}

// logcatArgs are the options of the simulated logcat.
type logcatArgs struct {
	pid    int
	dump   bool // -d: print what is buffered and exit
	count  int  // -T N / -t N
	since  time.Time
	follow bool
}

func parseLogcat(args []string) (logcatArgs, error) {
	a := logcatArgs{follow: true}
	value := func(i *int, opt string) (string, error) {
		if *i+1 >= len(args) {
			return "", fmt.Errorf("logcat: option requires an argument -- '%s'", strings.TrimLeft(opt, "-"))
		}
		*i++
		return args[*i], nil
	}
	for i := 0; i < len(args); i++ {
		o := args[i]
		switch {
		case o == "-v":
			f, err := value(&i, o)
			if err != nil {
				return a, err
			}
			if f != "threadtime" {
				return a, fmt.Errorf("logcat: only the threadtime format is simulated, not %q", f)
			}
		case o == "-d":
			a.dump, a.follow = true, false
		case o == "--pid" || strings.HasPrefix(o, "--pid="):
			v, found := strings.CutPrefix(o, "--pid=")
			if !found {
				var err error
				if v, err = value(&i, o); err != nil {
					return a, err
				}
			}
			pid, err := strconv.Atoi(v)
			if err != nil || pid <= 0 {
				return a, fmt.Errorf("logcat: --pid %q is not a process id", v)
			}
			a.pid = pid
		case o == "-T" || o == "-t":
			v, err := value(&i, o)
			if err != nil {
				return a, err
			}
			if o == "-t" {
				a.dump, a.follow = true, false
			}
			if n, err := strconv.Atoi(v); err == nil && n > 0 {
				a.count = n
				continue
			}
			t, err := time.ParseInLocation(adb.LogTimeLayout, v, time.Local)
			if err != nil {
				return a, fmt.Errorf("logcat: %s %q is neither a count nor a time (MM-DD HH:MM:SS.mmm)", o, v)
			}
			now := time.Now()
			a.since = t.AddDate(now.Year(), 0, 0)
			if a.since.After(now.Add(24 * time.Hour)) { // December's lines read in January
				a.since = a.since.AddDate(-1, 0, 0)
			}
		case o == "-b":
			if _, err := value(&i, o); err != nil {
				return a, err
			}
		default:
			return a, fmt.Errorf("logcat: unknown option %s (the simulator knows -v threadtime, --pid, -T, -t, -d, -b)", o)
		}
	}
	return a, nil
}

// logcatCommand recognises a logcat command line: "logcat …", or what
// `adb logcat` sends, `export ANDROID_LOG_TAGS="…"; exec logcat …`.
func logcatCommand(line string) ([]string, bool) {
	if rest, ok := strings.CutPrefix(line, "export ANDROID_LOG_TAGS="); ok {
		_, after, found := strings.Cut(rest, ";")
		if !found {
			return nil, false
		}
		line = strings.TrimSpace(after)
		line = strings.TrimPrefix(line, "exec ")
	}
	words, err := SplitCommand(line)
	if err != nil || len(words) == 0 || words[0] != "logcat" {
		return nil, false
	}
	return words, true
}

// serveLogcat is `logcat` through the shell service: the buffered lines
// from where -T says (all with neither -T nor -t), then new ones until the
// stream closes (or, with -d or -t, the end of the buffer).
func (d *Device) serveLogcat(s *stream, args []string, v2 bool) {
	write := func(b []byte) error {
		if v2 {
			b = shellPacket(shellStdout, b)
		}
		_, err := s.Write(b)
		return err
	}
	a, err := parseLogcat(args)
	if err != nil {
		if v2 {
			s.Write(append(shellPacket(shellStderr, []byte(err.Error()+"\n")), shellPacket(shellExit, []byte{1})...))
		} else {
			s.Write([]byte(err.Error() + "\n"))
		}
		return
	}
	l := &d.logs
	l.init()
	n := l.startAt(a.count, a.pid, a.since)
	if a.count == 0 && a.since.IsZero() {
		n = 0
	}
	if err := write([]byte("--------- beginning of main\n")); err != nil {
		return
	}
	var b []byte
	for {
		es, next, wake := l.from(n, 4096)
		n = next
		b = b[:0]
		for _, e := range es {
			if a.pid == 0 || e.line.PID == a.pid {
				b = append(b, adb.FormatThreadtime(e.line)...)
			}
		}
		if len(b) > 0 {
			if err := write(b); err != nil {
				return
			}
		}
		if len(es) > 0 {
			continue
		}
		if !a.follow {
			if v2 {
				s.Write(shellPacket(shellExit, []byte{0}))
			}
			return
		}
		select {
		case <-wake:
		case <-s.Done():
			return
		case <-l.stop:
			return
		}
	}
}

// logEvery has every process log a line each interval, its levels in turn
// (D, I, W, E), until the device closes: apps that say something.
func (d *Device) logEvery(every time.Duration) {
	l := &d.logs
	l.init()
	l.ticks.Add(1)
	go func() {
		defer l.ticks.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for i := 0; ; i++ {
			select {
			case <-t.C:
			case <-l.stop:
				return
			}
			for _, p := range d.Processes() {
				level := string("DIWE"[i%4])
				d.Log(p.PID, p.PID, level, "SimApp", fmt.Sprintf("%s: tick %d (%s)", p.Name, i, map[string]string{"D": "debug", "I": "info", "W": "a warning", "E": "an error"}[level]))
			}
		}
	}()
}

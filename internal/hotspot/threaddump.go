package hotspot

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// The JSON thread dump of a JDK 21+ VM (jcmd PID Thread.dump_to_file
// -format=json FILE), read as a stream: a dump of 100,000 virtual threads
// is decoded one thread at a time and kept as the platform threads and the
// virtual threads grouped by identical stack, so memory stays bounded by
// the number of distinct stacks (MaxGroups), not of threads.

// Bounds of a decoded dump.
const (
	// MaxGroups bounds the distinct virtual thread stacks kept; the
	// threads of any further stack are counted in Dump.Ungrouped.
	MaxGroups = 5000
	// MaxPlatform bounds the platform threads kept (the rest counted).
	MaxPlatform = 10000
	// maxFrames bounds the frames kept of a thread's stack.
	maxFrames = 256
	// maxGroupSamples bounds the thread ids a group names, and the
	// distinct carriers and blockers it lists.
	maxGroupSamples = 20
)

// DumpThread is one thread of a JSON thread dump. JDK 25 adds the state,
// the park blocker, the monitor it is blocked on or waits on, and a
// mounted virtual thread's carrier; JDK 21 has none of them.
type DumpThread struct {
	Tid         string       `json:"tid"`
	Name        string       `json:"name"`
	Virtual     bool         `json:"virtual,omitempty"`
	State       string       `json:"state,omitempty"`
	Carrier     string       `json:"carrier,omitempty"`
	ParkBlocker *ParkBlocker `json:"parkBlocker,omitempty"`
	BlockedOn   string       `json:"blockedOn,omitempty"`
	WaitingOn   string       `json:"waitingOn,omitempty"`
	Stack       []string     `json:"stack"`
}

// ParkBlocker is what a parked thread waits for, and who owns it when the
// VM says.
type ParkBlocker struct {
	Object string `json:"object"`
	Owner  string `json:"owner,omitempty"`
}

// Blocker is what the thread waits for: its park blocker, the monitor it
// is blocked on, or the one it waits on; "" when none.
func (t *DumpThread) Blocker() string {
	switch {
	case t.ParkBlocker != nil && t.ParkBlocker.Object != "":
		return t.ParkBlocker.Object
	case t.BlockedOn != "":
		return t.BlockedOn
	}
	return t.WaitingOn
}

// VirtualGroup is the virtual threads with one stack.
type VirtualGroup struct {
	Count int      `json:"count"`
	Stack []string `json:"stack"`
	// States counts the group's threads by state (JDK 25; "" before).
	States map[string]int `json:"states"`
	// Tids names the first threads; Carriers and Blockers the distinct
	// carriers (tids of mounted threads) and blockers met, the first ones.
	Tids     []string `json:"tids"`
	Carriers []string `json:"carriers,omitempty"`
	Blockers []string `json:"blockers,omitempty"`
	// Mounted counts the group's threads mounted on a carrier.
	Mounted int `json:"mounted"`
}

// Dump is a decoded JSON thread dump.
type Dump struct {
	ProcessID      string       `json:"processId"`
	Time           string       `json:"time"`
	RuntimeVersion string       `json:"runtimeVersion"`
	Platform       []DumpThread `json:"platform"`
	// PlatformCount counts every platform thread, Platform keeps
	// MaxPlatform of them.
	PlatformCount int `json:"platformCount"`
	// Virtual counts the virtual threads; Groups are they grouped by
	// stack, the largest first; Ungrouped counts the ones of stacks past
	// MaxGroups.
	Virtual   int            `json:"virtual"`
	Groups    []VirtualGroup `json:"groups"`
	Ungrouped int            `json:"ungrouped,omitempty"`
}

// DecodeThreadDump reads a JSON thread dump as HotSpot writes it
// ({"threadDump": {"processId", "time", "runtimeVersion",
// "threadContainers": [{"container", "threads": [...]}, ...]}}); each
// thread is in one container.
func DecodeThreadDump(r io.Reader) (*Dump, error) {
	dec := json.NewDecoder(r)
	d := &Dump{Platform: []DumpThread{}, Groups: []VirtualGroup{}}
	byStack := map[string]int{}
	if err := expectDelim(dec, '{'); err != nil {
		return nil, err
	}
	found := false
	for dec.More() {
		key, err := objectKey(dec)
		if err != nil {
			return nil, err
		}
		if key != "threadDump" {
			if err := skipValue(dec); err != nil {
				return nil, err
			}
			continue
		}
		found = true
		if err := d.decodeBody(dec, byStack); err != nil {
			return nil, err
		}
	}
	if !found {
		return nil, errors.New("hotspot: not a JSON thread dump (no \"threadDump\" object)")
	}
	sort.SliceStable(d.Groups, func(i, j int) bool { return d.Groups[i].Count > d.Groups[j].Count })
	return d, nil
}

func (d *Dump) decodeBody(dec *json.Decoder, byStack map[string]int) error {
	if err := expectDelim(dec, '{'); err != nil {
		return err
	}
	for dec.More() {
		key, err := objectKey(dec)
		if err != nil {
			return err
		}
		switch key {
		case "processId", "time", "runtimeVersion":
			var s string
			if err := dec.Decode(&s); err != nil {
				return fmt.Errorf("hotspot: thread dump %s: %w", key, err)
			}
			switch key {
			case "processId":
				d.ProcessID = s
			case "time":
				d.Time = s
			default:
				d.RuntimeVersion = s
			}
		case "threadContainers":
			if err := expectDelim(dec, '['); err != nil {
				return err
			}
			for dec.More() {
				if err := d.decodeContainer(dec, byStack); err != nil {
					return err
				}
			}
			if err := expectDelim(dec, ']'); err != nil {
				return err
			}
		default:
			if err := skipValue(dec); err != nil {
				return err
			}
		}
	}
	return expectDelim(dec, '}')
}

func (d *Dump) decodeContainer(dec *json.Decoder, byStack map[string]int) error {
	if err := expectDelim(dec, '{'); err != nil {
		return err
	}
	for dec.More() {
		key, err := objectKey(dec)
		if err != nil {
			return err
		}
		if key != "threads" {
			if err := skipValue(dec); err != nil {
				return err
			}
			continue
		}
		if err := expectDelim(dec, '['); err != nil {
			return err
		}
		for dec.More() {
			var t DumpThread
			if err := dec.Decode(&t); err != nil {
				return fmt.Errorf("hotspot: a thread of the dump: %w", err)
			}
			if len(t.Stack) > maxFrames {
				t.Stack = t.Stack[:maxFrames]
			}
			d.add(t, byStack)
		}
		if err := expectDelim(dec, ']'); err != nil {
			return err
		}
	}
	return expectDelim(dec, '}')
}

func (d *Dump) add(t DumpThread, byStack map[string]int) {
	if !t.Virtual {
		d.PlatformCount++
		if len(d.Platform) < MaxPlatform {
			d.Platform = append(d.Platform, t)
		}
		return
	}
	d.Virtual++
	key := strings.Join(t.Stack, "\n")
	i, ok := byStack[key]
	if !ok {
		if len(d.Groups) >= MaxGroups {
			d.Ungrouped++
			return
		}
		i = len(d.Groups)
		byStack[key] = i
		stack := t.Stack
		if stack == nil {
			stack = []string{}
		}
		d.Groups = append(d.Groups, VirtualGroup{Stack: stack, States: map[string]int{}, Tids: []string{}})
	}
	g := &d.Groups[i]
	g.Count++
	g.States[t.State]++
	if len(g.Tids) < maxGroupSamples {
		g.Tids = append(g.Tids, t.Tid)
	}
	if t.Carrier != "" {
		g.Mounted++
		g.Carriers = addDistinct(g.Carriers, t.Carrier)
	}
	if b := t.Blocker(); b != "" {
		g.Blockers = addDistinct(g.Blockers, b)
	}
}

func addDistinct(list []string, s string) []string {
	if len(list) >= maxGroupSamples {
		return list
	}
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("hotspot: thread dump: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("hotspot: thread dump: found %v where %q was expected", tok, string(want))
	}
	return nil
}

func objectKey(dec *json.Decoder) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", fmt.Errorf("hotspot: thread dump: %w", err)
	}
	key, ok := tok.(string)
	if !ok {
		return "", fmt.Errorf("hotspot: thread dump: found %v where a key was expected", tok)
	}
	return key, nil
}

// skipValue reads past one value, however nested.
func skipValue(dec *json.Decoder) error {
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return fmt.Errorf("hotspot: thread dump: %w", err)
	}
	return nil
}

package adb

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Device features (the CNXN banner, host-serial:SERIAL:features) that decide
// how processes are tracked. Sources: packages/modules/adb transport.cpp and
// docs/dev/services.md.
const (
	// FeatureTrackApp: adbd serves track-app (Android 12, API 31, on).
	FeatureTrackApp = "track_app"
	// FeatureAppInfo: track-app entries carry process name, package names,
	// user id, uid and waiting-for-debugger (adbd of 2024 on, Android 15).
	FeatureAppInfo = "app_info"
)

// AppProcess is one entry of a track-app update (adb's
// proto/app_processes.proto ProcessEntry): a debuggable or profileable
// process. Fields after Architecture are sent only by an adbd with the
// app_info feature; AppInfo says they were.
type AppProcess struct {
	PID          int
	Debuggable   bool
	Profileable  bool
	Architecture string // ISA name, e.g. "arm64"

	AppInfo            bool // the entry carried app_info fields (5–9)
	UserID             int
	ProcessName        string
	PackageNames       []string
	WaitingForDebugger bool
	UID                int
}

// Equal reports whether a and b are the same entry.
func (a AppProcess) Equal(b AppProcess) bool {
	return a.PID == b.PID && a.Debuggable == b.Debuggable && a.Profileable == b.Profileable &&
		a.Architecture == b.Architecture && a.AppInfo == b.AppInfo && a.UserID == b.UserID &&
		a.ProcessName == b.ProcessName && slices.Equal(a.PackageNames, b.PackageNames) &&
		a.WaitingForDebugger == b.WaitingForDebugger && a.UID == b.UID
}

// ProcessEntry and AppProcesses field numbers.
const (
	fieldProcess = 1 // AppProcesses.process

	fieldPID          = 1
	fieldDebuggable   = 2
	fieldProfileable  = 3
	fieldArchitecture = 4
	fieldUserID       = 5
	fieldProcessName  = 6
	fieldPackageNames = 7
	fieldWaiting      = 8
	fieldUID          = 9
)

// Protocol buffer wire types.
const (
	wireVarint = 0
	wireI64    = 1
	wireLen    = 2
	wireI32    = 5
)

// maxApps bounds the entries of one update: a 64 KiB body holds fewer.
const maxApps = 1 << 14

// pbField is one decoded protocol buffer field.
type pbField struct {
	num  uint64
	wire int
	v    uint64 // varint, i32, i64
	b    []byte // len
}

// pbNext decodes the field at the start of b and returns the rest.
func pbNext(b []byte) (pbField, []byte, error) {
	key, n := binary.Uvarint(b)
	if n <= 0 {
		return pbField{}, nil, errors.New("bad field key")
	}
	b = b[n:]
	f := pbField{num: key >> 3, wire: int(key & 7)}
	if f.num == 0 {
		return pbField{}, nil, errors.New("field number 0")
	}
	switch f.wire {
	case wireVarint:
		f.v, n = binary.Uvarint(b)
		if n <= 0 {
			return pbField{}, nil, fmt.Errorf("field %d: bad varint", f.num)
		}
		return f, b[n:], nil
	case wireI64:
		if len(b) < 8 {
			return pbField{}, nil, fmt.Errorf("field %d: truncated", f.num)
		}
		f.v = binary.LittleEndian.Uint64(b)
		return f, b[8:], nil
	case wireI32:
		if len(b) < 4 {
			return pbField{}, nil, fmt.Errorf("field %d: truncated", f.num)
		}
		f.v = uint64(binary.LittleEndian.Uint32(b))
		return f, b[4:], nil
	case wireLen:
		l, n := binary.Uvarint(b)
		if n <= 0 || l > uint64(len(b)-n) {
			return pbField{}, nil, fmt.Errorf("field %d: bad length", f.num)
		}
		f.b = b[n : n+int(l)]
		return f, b[n+int(l):], nil
	}
	return pbField{}, nil, fmt.Errorf("field %d: unsupported wire type %d", f.num, f.wire)
}

// ParseAppProcesses decodes one track-app update: a binary AppProcesses
// message. Unknown fields are skipped, as protocol buffers require.
func ParseAppProcesses(body []byte) ([]AppProcess, error) {
	out := []AppProcess{}
	for len(body) > 0 {
		f, rest, err := pbNext(body)
		if err != nil {
			return nil, fmt.Errorf("adb track-app: %w", err)
		}
		body = rest
		if f.num != fieldProcess {
			continue
		}
		if f.wire != wireLen {
			return nil, fmt.Errorf("adb track-app: process entry has wire type %d", f.wire)
		}
		if len(out) >= maxApps {
			return nil, fmt.Errorf("adb track-app: more than %d processes", maxApps)
		}
		p, err := parseProcessEntry(f.b)
		if err != nil {
			return nil, fmt.Errorf("adb track-app: process %d: %w", len(out), err)
		}
		out = append(out, p)
	}
	return out, nil
}

func parseProcessEntry(b []byte) (AppProcess, error) {
	var p AppProcess
	for len(b) > 0 {
		f, rest, err := pbNext(b)
		if err != nil {
			return p, err
		}
		b = rest
		want := wireVarint
		switch f.num {
		case fieldArchitecture, fieldProcessName, fieldPackageNames:
			want = wireLen
		case fieldPID, fieldDebuggable, fieldProfileable, fieldUserID, fieldWaiting, fieldUID:
		default:
			continue
		}
		if f.wire != want {
			return p, fmt.Errorf("field %d has wire type %d, want %d", f.num, f.wire, want)
		}
		switch f.num {
		case fieldPID:
			p.PID = int(int64(f.v))
		case fieldDebuggable:
			p.Debuggable = f.v != 0
		case fieldProfileable:
			p.Profileable = f.v != 0
		case fieldArchitecture:
			p.Architecture = string(f.b)
		case fieldUserID:
			p.AppInfo, p.UserID = true, int(int64(f.v))
		case fieldProcessName:
			p.AppInfo, p.ProcessName = true, string(f.b)
		case fieldPackageNames:
			p.AppInfo = true
			p.PackageNames = append(p.PackageNames, string(f.b))
		case fieldWaiting:
			p.AppInfo, p.WaitingForDebugger = true, f.v != 0
		case fieldUID:
			p.AppInfo, p.UID = true, int(int64(f.v))
		}
	}
	if p.PID <= 0 {
		return p, fmt.Errorf("pid %d is not a process id", p.PID)
	}
	return p, nil
}

func pbVarint(b []byte, num int, v uint64) []byte {
	b = binary.AppendUvarint(b, uint64(num)<<3|wireVarint)
	return binary.AppendUvarint(b, v)
}

func pbBytes(b []byte, num int, s []byte) []byte {
	b = binary.AppendUvarint(b, uint64(num)<<3|wireLen)
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func pbBool(b []byte, num int, v bool) []byte {
	if !v {
		return b
	}
	return pbVarint(b, num, 1)
}

// EncodeAppProcesses is the body of a track-app update, as adbd builds it:
// proto3 leaves false and empty scalars out; the app_info fields (explicitly
// optional) are written, zero or not, for entries with AppInfo.
func EncodeAppProcesses(ps []AppProcess) []byte {
	var out []byte
	for _, p := range ps {
		var e []byte
		if p.PID != 0 {
			e = pbVarint(e, fieldPID, uint64(int64(p.PID)))
		}
		e = pbBool(e, fieldDebuggable, p.Debuggable)
		e = pbBool(e, fieldProfileable, p.Profileable)
		if p.Architecture != "" {
			e = pbBytes(e, fieldArchitecture, []byte(p.Architecture))
		}
		if p.AppInfo {
			e = pbVarint(e, fieldUserID, uint64(int64(p.UserID)))
			e = pbBytes(e, fieldProcessName, []byte(p.ProcessName))
			for _, n := range p.PackageNames {
				e = pbBytes(e, fieldPackageNames, []byte(n))
			}
			w := uint64(0)
			if p.WaitingForDebugger {
				w = 1
			}
			e = pbVarint(e, fieldWaiting, w)
			e = pbVarint(e, fieldUID, uint64(int64(p.UID)))
		}
		out = pbBytes(out, fieldProcess, e)
	}
	return out
}

// HostFeatures returns the adb server's own features (host:host-features):
// what the server can relay or do itself. Servers before 2020 refuse the
// request; that is reported as an error the caller may ignore.
func (c *Client) HostFeatures(ctx context.Context) ([]string, error) {
	body, err := c.query(ctx, "host:host-features")
	if err != nil {
		return nil, err
	}
	if body == "" {
		return nil, nil
	}
	return strings.Split(body, ","), nil
}

// TrackApp follows the device's debuggable and profileable processes
// (track-app, devices with the track_app feature) until ctx ends, the tracker
// is closed or the device goes away. The server relays the service to the
// device whatever its own version; a device without it refuses the OPEN.
func (c *Client) TrackApp(ctx context.Context, serial string) (*Tracker[[]AppProcess], error) {
	nc, err := c.OpenService(ctx, serial, "track-app")
	if err != nil {
		return nil, err
	}
	t := newTracker[[]AppProcess](ctx, nc)
	parse := func(body string) ([]AppProcess, error) { return ParseAppProcesses([]byte(body)) }
	go readLists(ctx, t, "adb -s "+serial+" track-app", parse, t.emit)
	return t, nil
}

// ProcessFrozen reports whether process pid sleeps in the cgroup freezer
// (/proc/PID/wchan reads do_freezer_trap with cgroup v2, __refrigerator with
// v1): how Android's cached-apps freezer holds an app, and why adbd then
// refuses jdwp:PID.
func (c *Client) ProcessFrozen(ctx context.Context, serial string, pid int) (bool, error) {
	out, err := c.Shell(ctx, serial, fmt.Sprintf("cat /proc/%d/wchan", pid))
	if err != nil {
		return false, err
	}
	if strings.Contains(out, "No such file") {
		return false, fmt.Errorf("adb -s %s: process %d: %w", serial, pid, ErrNoProcess)
	}
	return strings.Contains(out, "freezer") || strings.Contains(out, "refrigerator"), nil
}

package adb

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Host protocol framing (shared/reference/adb.md, "Host protocol"): a request
// is four lowercase hex digits of length and the payload; an answer is OKAY,
// or FAIL and a length-prefixed message; many answers then carry one
// length-prefixed body.

// MaxMessage is the largest body a 4-hex-digit length can announce.
const MaxMessage = 0xFFFF

const (
	statusOK   = "OKAY"
	statusFail = "FAIL"
)

// FailError is the adb server's (or the device's) refusal of a request: its
// FAIL message.
type FailError struct {
	Request string // what was asked, e.g. "host:transport:emulator-5554"
	Message string // the server's words, e.g. "device 'x' not found"
}

func (e *FailError) Error() string {
	return fmt.Sprintf("adb %s: %s", e.Request, e.Message)
}

// EncodeMessage frames a request or body: %04x length, then the payload.
func EncodeMessage(payload string) ([]byte, error) {
	if len(payload) > MaxMessage {
		return nil, fmt.Errorf("adb: message of %d bytes exceeds the %d a 4-hex-digit length allows", len(payload), MaxMessage)
	}
	return fmt.Appendf(nil, "%04x%s", len(payload), payload), nil
}

// ParseHexLength decodes the 4 hex digits that prefix every message.
func ParseHexLength(b []byte) (int, error) {
	if len(b) != 4 {
		return 0, fmt.Errorf("adb: length prefix %q is not 4 hex digits", b)
	}
	n := 0
	for _, c := range b {
		var v byte
		switch {
		case c >= '0' && c <= '9':
			v = c - '0'
		case c >= 'a' && c <= 'f':
			v = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			v = c - 'A' + 10
		default:
			return 0, fmt.Errorf("adb: length prefix %q is not 4 hex digits", b)
		}
		n = n<<4 | int(v)
	}
	return n, nil
}

// ReadMessage reads one length-prefixed message (4 hex digits, then that
// many bytes).
func ReadMessage(r io.Reader) (string, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return "", err
	}
	n, err := ParseHexLength(hdr[:])
	if err != nil {
		return "", err
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return "", err
	}
	return string(buf), nil
}

// ReadStatus reads OKAY, or FAIL and its message, which it returns as a
// *FailError naming request.
func ReadStatus(r io.Reader, request string) error {
	var st [4]byte
	if _, err := io.ReadFull(r, st[:]); err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("adb %s: the server closed the connection without an answer", request)
		}
		return fmt.Errorf("adb %s: reading the answer: %w", request, err)
	}
	switch string(st[:]) {
	case statusOK:
		return nil
	case statusFail:
		msg, err := ReadMessage(r)
		if err != nil {
			return fmt.Errorf("adb %s: FAIL with an unreadable message: %w", request, err)
		}
		return &FailError{Request: request, Message: msg}
	}
	return fmt.Errorf("adb %s: answer %q is neither OKAY nor FAIL — is this address an adb server?", request, st[:])
}

// State is a device's connection state as adb reports it.
type State string

const (
	StateDevice       State = "device" // online: services can be opened
	StateOffline      State = "offline"
	StateUnauthorized State = "unauthorized" // the user has not accepted this computer's key
	StateAuthorizing  State = "authorizing"
	StateConnecting   State = "connecting"
	StateBootloader   State = "bootloader"
	StateRecovery     State = "recovery"
	StateSideload     State = "sideload"
	StateHost         State = "host"
)

// Online reports whether services (track-jdwp, shell, …) can be opened.
func (s State) Online() bool { return s == StateDevice }

// Device is one line of `adb devices -l`.
type Device struct {
	Serial      string // "emulator-5554", "127.0.0.1:5555", a USB serial
	State       State
	Product     string // ro.product.name, "product:"
	Model       string // ro.product.model with spaces as '_', "model:"
	Name        string // ro.product.device, "device:"
	USB         string // USB path, "usb:", when connected over USB
	TransportID int    // the server's id for this connection, "transport_id:"
}

// deviceKeys are the key:value fields of a devices -l line; a token with one
// of these prefixes ends the state (which may contain spaces, e.g.
// "no permissions (…)").
var deviceKeys = map[string]func(*Device, string){
	"product":      func(d *Device, v string) { d.Product = v },
	"model":        func(d *Device, v string) { d.Model = v },
	"device":       func(d *Device, v string) { d.Name = v },
	"usb":          func(d *Device, v string) { d.USB = v },
	"transport_id": func(d *Device, v string) { d.TransportID, _ = strconv.Atoi(v) },
}

// ParseDevices decodes the body of host:devices, host:devices-l and each
// host:track-devices[-l] update. Both line forms are accepted:
// "SERIAL\tSTATE" and "SERIAL   STATE key:value …". Blank lines are skipped;
// a line without a state is an error.
func ParseDevices(body string) ([]Device, error) {
	var out []Device
	for line := range strings.SplitSeq(body, "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		var d Device
		if serial, state, ok := strings.Cut(line, "\t"); ok {
			d.Serial, d.State = serial, State(strings.TrimSpace(state))
		} else {
			f := strings.Fields(line)
			if len(f) < 2 {
				return nil, fmt.Errorf("adb: device line %q has no state", line)
			}
			d.Serial = f[0]
			state := []string{f[1]}
			i := 2
			for ; i < len(f); i++ {
				if k, _, ok := strings.Cut(f[i], ":"); ok && deviceKeys[k] != nil {
					break
				}
				state = append(state, f[i])
			}
			for ; i < len(f); i++ {
				if k, v, ok := strings.Cut(f[i], ":"); ok && deviceKeys[k] != nil {
					deviceKeys[k](&d, v)
				}
			}
			d.State = State(strings.Join(state, " "))
		}
		if d.Serial == "" || d.State == "" {
			return nil, fmt.Errorf("adb: device line %q has no serial or state", line)
		}
		out = append(out, d)
	}
	return out, nil
}

// ParsePIDs decodes a track-jdwp update or the one-shot jdwp service's
// output: one decimal pid per line. Lines that are not a positive number are
// an error.
func ParsePIDs(body string) ([]int, error) {
	var pids []int
	for line := range strings.SplitSeq(body, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		pid, err := strconv.Atoi(line)
		if err != nil || pid <= 0 {
			return nil, fmt.Errorf("adb: pid line %q is not a process id", line)
		}
		pids = append(pids, pid)
	}
	return pids, nil
}

// EncodePIDs is the body of a track-jdwp update: "PID\n" per process.
func EncodePIDs(pids []int) string {
	var b strings.Builder
	for _, p := range pids {
		b.WriteString(strconv.Itoa(p))
		b.WriteByte('\n')
	}
	return b.String()
}

// ForwardRule is one line of `adb forward --list`.
type ForwardRule struct {
	Serial string
	Local  string // "tcp:8700"
	Remote string // "jdwp:1234"
}

// ParseForwards decodes the body of host:list-forward: "SERIAL LOCAL REMOTE"
// lines.
func ParseForwards(body string) ([]ForwardRule, error) {
	var out []ForwardRule
	for line := range strings.SplitSeq(body, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 3 {
			return nil, fmt.Errorf("adb: forward line %q is not SERIAL LOCAL REMOTE", line)
		}
		out = append(out, ForwardRule{Serial: f[0], Local: f[1], Remote: f[2]})
	}
	return out, nil
}

// ParseProps decodes `getprop` output: "[key]: [value]" lines (ddmlib's
// format). Values spanning lines are joined with '\n'; other lines are
// ignored.
func ParseProps(out string) map[string]string {
	props := map[string]string{}
	var key string
	var val strings.Builder
	open := false
	for line := range strings.SplitSeq(out, "\n") {
		line = strings.TrimRight(line, "\r")
		if open {
			val.WriteByte('\n')
			if strings.HasSuffix(line, "]") {
				val.WriteString(strings.TrimSuffix(line, "]"))
				props[key] = val.String()
				open = false
			} else {
				val.WriteString(line)
			}
			continue
		}
		k, v, ok := strings.Cut(line, "]: [")
		if !ok || !strings.HasPrefix(k, "[") {
			continue
		}
		key = k[1:]
		val.Reset()
		if strings.HasSuffix(v, "]") {
			props[key] = strings.TrimSuffix(v, "]")
			continue
		}
		val.WriteString(v)
		open = true
	}
	return props
}

// readAll reads what a one-shot service sends until the device closes it.
func readAll(r io.Reader, limit int64) (string, error) {
	b, err := io.ReadAll(io.LimitReader(bufio.NewReader(r), limit))
	return string(b), err
}

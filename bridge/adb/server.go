package adb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// DefaultPort is where the adb server listens unless the environment says
// otherwise.
const DefaultPort = 5037

// ErrADBNotFound is returned (wrapped) when a server must be started and no
// adb executable can be found.
var ErrADBNotFound = errors.New("adb not found: install the adb package (apt-get install adb) or Android platform-tools, or put adb on $PATH")

// ServerAddr returns the adb server address the environment selects, as adb
// and ddmlib resolve it: ADB_SERVER_SOCKET ("tcp:PORT", "tcp:HOST:PORT" or
// "localhost:PORT"), else ANDROID_ADB_SERVER_PORT, else 127.0.0.1:5037.
func ServerAddr() (string, error) {
	if s := os.Getenv("ADB_SERVER_SOCKET"); s != "" {
		addr, err := ParseServerSocket(s)
		if err != nil {
			return "", fmt.Errorf("ADB_SERVER_SOCKET: %w", err)
		}
		return addr, nil
	}
	if p := os.Getenv("ANDROID_ADB_SERVER_PORT"); p != "" {
		port, err := strconv.Atoi(p)
		if err != nil || port <= 0 || port > 65535 {
			return "", fmt.Errorf("ANDROID_ADB_SERVER_PORT=%q is not a port number (1-65535)", p)
		}
		return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), nil
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(DefaultPort)), nil
}

// ParseServerSocket turns an adb socket spec into a dialable address:
// "tcp:PORT" and "localhost:PORT" are 127.0.0.1:PORT, "tcp:HOST:PORT" is
// HOST:PORT. Plain "HOST:PORT" is accepted too.
func ParseServerSocket(spec string) (string, error) {
	rest, isTCP := strings.CutPrefix(spec, "tcp:")
	host, port := "127.0.0.1", rest
	if h, p, err := net.SplitHostPort(rest); err == nil {
		host, port = h, p
		if host == "localhost" || host == "" {
			host = "127.0.0.1"
		}
	} else if !isTCP {
		return "", fmt.Errorf("%q is not a server socket spec (tcp:PORT, tcp:HOST:PORT or localhost:PORT)", spec)
	}
	if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
		return "", fmt.Errorf("%q: %q is not a port number", spec, port)
	}
	return net.JoinHostPort(host, port), nil
}

// adbPath finds the adb executable: Client.ADB, else $PATH.
func (c *Client) adbPath() (string, error) {
	name := c.ADB
	if name == "" {
		name = "adb"
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%w (looked for %q)", ErrADBNotFound, name)
	}
	return p, nil
}

// StartServer runs `adb -P PORT start-server` for the client's address and
// returns once the server answers. It only starts servers on this machine:
// for a remote address it returns an error saying so.
func (c *Client) StartServer(ctx context.Context) error {
	addr, err := c.addr()
	if err != nil {
		return err
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("adb server address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("no adb server answers at %s and it is not on this machine: start it there (adb -a -P %s start-server)", addr, port)
	}
	adb, err := c.adbPath()
	if err != nil {
		return err
	}
	c.log().Info().Str("adb", adb).Str("addr", addr).Msg("starting the adb server")
	cmd := exec.CommandContext(ctx, adb, "-P", port, "start-server")
	cmd.Env = append(withoutEnv(os.Environ(), "ADB_SERVER_SOCKET", "ANDROID_ADB_SERVER_PORT"), "ANDROID_ADB_SERVER_PORT="+port)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// The forked server may keep our output pipe open; do not wait for it.
	cmd.WaitDelay = time.Second
	err = cmd.Run()
	if err != nil && !errors.Is(err, exec.ErrWaitDelay) {
		if ctx.Err() != nil {
			return fmt.Errorf("adb -P %s start-server: %w", port, ctx.Err())
		}
		return fmt.Errorf("adb -P %s start-server: %v: %s", port, err, strings.TrimSpace(out.String()))
	}
	c.log().Debug().Str("output", strings.TrimSpace(out.String())).Msg("adb start-server")
	return nil
}

// KillServer asks the server to exit (host:kill), as `adb kill-server` does.
func (c *Client) KillServer(ctx context.Context) error {
	nc, err := c.openNoStart(ctx, "host:kill")
	if err != nil {
		return err
	}
	nc.Close()
	return nil
}

func withoutEnv(env []string, names ...string) []string {
	out := env[:0:0]
outer:
	for _, kv := range env {
		for _, n := range names {
			if strings.HasPrefix(kv, n+"=") {
				continue outer
			}
		}
		out = append(out, kv)
	}
	return out
}

//go:build linux

package rpc

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge/access"
	"github.com/ddmbridge/ddmbridge/bridge/bridgetest"
	"github.com/rs/zerolog"
)

// perlUnixClient is a client as another user: it connects to a unix
// socket again and again, sends a vms/list request each time, and prints
// "SERVED" when an answer comes and "N" after every 100 attempts.
const perlUnixClient = `
use IO::Socket::UNIX;
$| = 1;
my ($path, $req) = @ARGV;
for (my $n = 1; ; $n++) {
  my $s = IO::Socket::UNIX->new(Type => SOCK_STREAM(), Peer => $path);
  if ($s) {
    print $s $req;
    my $got = '';
    my $rin = ''; vec($rin, fileno($s), 1) = 1;
    if (select($rin, undef, undef, 10) > 0) { sysread($s, $got, 64); }
    print "SERVED\n" if $got =~ /Content-Length/;
    close $s;
  }
  print "$n\n" if $n % 100 == 0;
}
`

// TestControlSocketPrivateUnderUmask (issue 42.6): a control socket made
// in a shared directory under umask 000 is mode 0600 from the start (no
// chmod window: another user hammering it while the monitor restarts 100
// times is never served), and a connection of another user that gets in
// anyway (the socket's mode loosened by hand) is refused by its peer's
// credentials, with a log line.
func TestControlSocketPrivateUnderUmask(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run a client as another user")
	}
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	shared, err := os.MkdirTemp("", "ctl-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(shared)
	os.Chmod(shared, 0o1777)
	sock := filepath.Join(shared, "ddmbridge.sock")
	m := startMonitor(t, testOptions(t, 0, 0))
	logs := &bridgetest.LogLines{T: t}
	serve := func() (stop func()) {
		ln, err := access.Listen("unix:"+sock, access.ListenOptions{Logger: zerolog.New(logs).Level(zerolog.InfoLevel)})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { NewServer(m, ServerOptions{Logger: testLogger(t)}).Serve(ctx, ln); close(done) }()
		return func() { cancel(); ln.Close(); <-done }
	}

	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	client := exec.CommandContext(ctx, "perl", "-e", perlUnixClient, sock, rawCall())
	client.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}, Setpgid: true}
	client.Dir = "/"
	var out, stderr bytes.Buffer
	client.Stdout, client.Stderr = &out, &stderr
	if err := client.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { syscall.Kill(-client.Process.Pid, syscall.SIGKILL); client.Wait() }()
	for range 100 {
		stop := serve()
		if fi, err := os.Stat(sock); err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("the control socket: %v, %v; want mode 0600", fi.Mode(), err)
		}
		stop()
	}
	// The socket's mode loosened: the peer check refuses the other user.
	stop := serve()
	defer stop()
	os.Chmod(sock, 0o666)
	waitFor(t, time.Minute, "the other user's connection to be refused", func() bool {
		return logs.Has("connection refused", "uid 65534")
	})
	syscall.Kill(-client.Process.Pid, syscall.SIGKILL)
	client.Wait()
	attempts := 0
	for _, l := range strings.Fields(out.String()) {
		if l == "SERVED" {
			t.Fatalf("another user was served by the control socket (%s)", stderr.String())
		}
		attempts, _ = strconv.Atoi(l)
	}
	t.Logf("the other user tried %d+ times", attempts)
	c, err := DialRPC(t.Context(), "unix:"+sock, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.VMs(t.Context()); err != nil {
		t.Fatalf("this user's client: %v", err)
	}
}

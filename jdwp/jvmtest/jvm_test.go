package jvmtest

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// helloClasses compiles testdata/hello once per test binary (the cache does
// the rest) and returns its class directory.
func helloClasses(t *testing.T) string {
	t.Helper()
	RequireJava(t)
	dir, err := CompileCached(t.Context(), filepath.Join("testdata", "hello"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// jdwpHandshake does the JDWP handshake on c as the debugger: send the 14
// bytes, expect them back.
func jdwpHandshake(t *testing.T, c net.Conn) {
	t.Helper()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, Handshake); err != nil {
		t.Fatalf("send handshake: %v", err)
	}
	buf := make([]byte, len(Handshake))
	if _, err := io.ReadFull(c, buf); err != nil {
		t.Fatalf("read handshake reply: %v", err)
	}
	if string(buf) != Handshake {
		t.Fatalf("handshake reply %q, want %q", buf, Handshake)
	}
}

func dialHandshake(t *testing.T, addr string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		t.Fatalf("dial JDWP %s: %v", addr, err)
	}
	defer c.Close()
	jdwpHandshake(t, c)
}

func assertGone(t *testing.T, vm *JVM) {
	t.Helper()
	select {
	case <-vm.Exited():
	case <-time.After(10 * time.Second):
		t.Fatalf("JVM pid %d still running after Close", vm.Pid)
	}
	if vm.Cmd.ProcessState == nil {
		t.Fatalf("JVM pid %d not reaped", vm.Pid)
	}
	if processAlive(vm.Pid) {
		t.Fatalf("JVM pid %d still exists after Close", vm.Pid)
	}
}

func TestCompile(t *testing.T) {
	t.Parallel()
	RequireJava(t)
	ctx := t.Context()
	out := t.TempDir()
	if err := Compile(ctx, out, filepath.Join("testdata", "hello")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "Hello.class")); err != nil {
		t.Fatalf("Compile wrote no Hello.class: %v", err)
	}

	a, err := CompileCached(ctx, filepath.Join("testdata", "hello", "Hello.java"))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	b, err := CompileCached(ctx, filepath.Join("testdata", "hello"))
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Errorf("same sources compiled into two cache dirs %s and %s", a, b)
	}
	t.Logf("cached compile took %v", time.Since(start))

	_, err = CompileFiles(ctx, map[string][]byte{"Broken.java": []byte("class Broken { int x = ; }")})
	if err == nil || !strings.Contains(err.Error(), "Broken.java") || !strings.Contains(err.Error(), "error") {
		t.Errorf("compiling a syntax error: got %v, want javac's error message", err)
	}
	if _, err := CompileFiles(ctx, map[string][]byte{"../Escape.java": nil}); err == nil {
		t.Error("CompileFiles accepted a source name outside its directory")
	}
}

func TestCompileParallel(t *testing.T) {
	t.Parallel()
	RequireJava(t)
	// A source unique to this run, so the first compile really runs javac.
	src := []byte("class Par { static final long T = " + time.Now().Format("20060102150405") + "L; }")
	dirs := make(chan string, 4)
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			d, err := CompileFiles(t.Context(), map[string][]byte{"Par.java": src})
			dirs <- d
			errs <- err
		}()
	}
	var got []string
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
		got = append(got, <-dirs)
	}
	// The source is unique to this run: do not let the cache collect them.
	t.Cleanup(func() { os.RemoveAll(got[0]) })
	if slices.Sort(got); got[0] != got[len(got)-1] {
		t.Errorf("parallel compiles of one source gave different dirs: %v", got)
	}
}

func TestFindToolMissing(t *testing.T) {
	t.Setenv("JAVA_HOME", "")
	t.Setenv("PATH", t.TempDir())
	_, err := FindTool("javac")
	if !errors.Is(err, ErrNoJDK) || !strings.Contains(err.Error(), "javac not found: install openjdk-17-jdk-headless") {
		t.Fatalf("FindTool without a JDK: %v", err)
	}
}

func TestStartSuspendN(t *testing.T) {
	t.Parallel()
	vm := StartT(t, Options{ClassPath: []string{helloClasses(t)}, MainClass: "Hello", Args: []string{"a"}, ReadyLine: "READY"})
	if vm.Port == 0 || !strings.HasPrefix(vm.Addr, "127.0.0.1:") {
		t.Fatalf("Addr %q Port %d: want a loopback address with a real port", vm.Addr, vm.Port)
	}
	line, err := vm.WaitForLine(t.Context(), "READY")
	if err != nil || line != "READY 1" {
		t.Fatalf("WaitForLine(READY) = %q, %v", line, err)
	}
	dialHandshake(t, vm.Addr)
	// server=y accepts the next debugger after one detaches, once it listens
	// again.
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	c, err := DialHandshake(ctx, vm.Addr)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if err := vm.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	assertGone(t, vm)
	if err := vm.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestStartSuspendY(t *testing.T) {
	t.Parallel()
	vm := StartT(t, Options{ClassPath: []string{helloClasses(t)}, MainClass: "Hello", Suspend: true})
	if slices.ContainsFunc(vm.Stdout(), func(s string) bool { return strings.Contains(s, "READY") }) {
		t.Fatal("suspend=y VM ran main before a debugger attached")
	}
	dialHandshake(t, vm.Addr)
	vm.Kill()
	if err := vm.Wait(); err == nil {
		t.Error("Wait after Kill: want the kill signal as exit error")
	}
	assertGone(t, vm)
}

func TestStartAttachToDebugger(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
	}()
	vm := StartT(t, Options{
		ClassPath: []string{helloClasses(t)}, MainClass: "Hello",
		AttachToDebugger: true, Address: ln.Addr().String(), Suspend: true,
	})
	if vm.Addr != ln.Addr().String() {
		t.Errorf("Addr = %q, want the debugger's %q", vm.Addr, ln.Addr())
	}
	select {
	case c := <-accepted:
		defer c.Close()
		jdwpHandshake(t, c)
	case <-time.After(30 * time.Second):
		t.Fatal("the agent never connected to the debugger")
	}
	if err := vm.Close(); err != nil {
		t.Fatal(err)
	}
	assertGone(t, vm)
}

func TestStartErrors(t *testing.T) {
	t.Parallel()
	classes := helloClasses(t)
	ctx := t.Context()

	t.Run("no main class", func(t *testing.T) {
		t.Parallel()
		_, err := Start(ctx, Options{ClassPath: []string{classes}, MainClass: "NoSuchClass", ReadyLine: "READY"})
		if err == nil || !strings.Contains(err.Error(), "NoSuchClass") || !strings.Contains(err.Error(), "JVM exited") {
			t.Fatalf("got %v, want an error naming the class and the exit", err)
		}
	})
	t.Run("exits before ready", func(t *testing.T) {
		t.Parallel()
		_, err := Start(ctx, Options{ClassPath: []string{classes}, MainClass: "Hello", Args: []string{"exit", "3"}, ReadyLine: "READY"})
		if err == nil || !strings.Contains(err.Error(), "exit status 3") || !strings.Contains(err.Error(), "bye") {
			t.Fatalf("got %v, want exit status 3 and the program's output", err)
		}
	})
	t.Run("address in use", func(t *testing.T) {
		t.Parallel()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		_, err = Start(ctx, Options{ClassPath: []string{classes}, MainClass: "Hello", Address: ln.Addr().String()})
		if err == nil || !strings.Contains(err.Error(), "address is in use") {
			t.Fatalf("got %v, want a bind failure", err)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		t.Parallel()
		start := time.Now()
		_, err := Start(ctx, Options{ClassPath: []string{classes}, MainClass: "Hello", ReadyLine: "never printed", Timeout: 3 * time.Second})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("got %v, want a deadline error", err)
		}
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("Start took %v with a 3s timeout", d)
		}
	})
}

package jdwp_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

// Attach to a VM started with
// -agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=127.0.0.1:8000
// and list its threads.
func ExampleDial() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := jdwp.Dial(ctx, "127.0.0.1:8000", &jdwp.Options{HandshakeTimeout: 2 * time.Second})
	if err != nil {
		log.Fatal(err) // says what to check, e.g. how the VM must be started
	}
	defer conn.Close()

	v, err := conn.Version(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s %s (JDWP %d.%d)\n", v.VMName, v.VMVersion, v.JDWPMajor, v.JDWPMinor)

	threads, err := conn.AllThreads(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range threads {
		name, err := conn.ThreadName(ctx, t)
		if jdwp.Code(err) == jdwp.ErrInvalidThread {
			continue // the thread ended meanwhile
		} else if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("thread %d: %s\n", t, name)
	}
}

// Stop at the first line of Hello.main and print the stack.
func ExampleConn_SetRequest() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := jdwp.Dial(ctx, "127.0.0.1:8000", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	// Subscribe before setting requests, so no event can be missed.
	events := conn.Subscribe()
	defer events.Close()

	classes, err := conn.ClassesBySignature(ctx, "LHello;")
	if err != nil || len(classes) == 0 {
		log.Fatalf("class Hello not loaded: %v", err)
	}
	class := classes[0]
	methods, err := conn.Methods(ctx, class.ID)
	if err != nil {
		log.Fatal(err)
	}
	var loc jdwp.Location
	for _, m := range methods {
		if m.Name == "main" {
			lines, err := conn.LineTable(ctx, class.ID, m.ID)
			if err != nil {
				log.Fatal(err) // ABSENT_INFORMATION: compile with -g
			}
			loc = jdwp.Location{TypeTag: class.TypeTag, Class: class.ID, Method: m.ID, Index: lines.Lines[0].CodeIndex}
		}
	}
	bp, err := conn.SetRequest(ctx, jdwp.EventBreakpoint, jdwp.SuspendEventThread, jdwp.LocationOnly(loc))
	if err != nil {
		log.Fatal(err)
	}

	for set := range events.C {
		for _, e := range set.Events {
			switch {
			case e.Kind == jdwp.EventVMDisconnected:
				log.Fatal("VM gone before the breakpoint was hit")
			case e.Kind == jdwp.EventBreakpoint && e.RequestID == bp:
				frames, err := conn.Frames(ctx, e.Thread, 0, -1)
				if err != nil {
					log.Fatal(err)
				}
				for _, f := range frames {
					fmt.Println(f.Location)
				}
				conn.ClearRequest(ctx, jdwp.EventBreakpoint, bp)
				conn.ResumeThread(ctx, e.Thread)
				return
			}
		}
	}
}

// Answer the DDM packets (vendor command set 0xC7) an Android VM sends, and
// send one of our own.
func ExampleConn_HandleCommandSet() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := jdwp.Dial(ctx, "127.0.0.1:8700", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()

	conn.HandleCommandSet(jdwp.SetDDM, func(c *jdwp.Conn, p *jdwp.Packet) {
		// Runs on the reader goroutine: hand the chunk off, never block here.
		if len(p.Data) >= 8 {
			fmt.Printf("chunk %q, %d bytes\n", p.Data[:4], binary.BigEndian.Uint32(p.Data[4:8]))
		}
		c.Reply(p.ID, jdwp.ErrNone, nil)
	})

	// A HELO chunk: type, length, then our protocol version.
	chunk := binary.BigEndian.AppendUint32([]byte("HELO"), 4)
	chunk = binary.BigEndian.AppendUint32(chunk, 1)
	reply, err := conn.Command(ctx, jdwp.SetDDM, 1, chunk)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("HELO reply: %d bytes\n", len(reply))
}

// Decode a CLASS_PREPARE event as a HotSpot VM sent it (all ids 8 bytes).
func ExampleDecodeEventSet() {
	data := []byte{
		2,          // suspend policy: all threads
		0, 0, 0, 1, // one event
		8, 0, 0, 0, 2, // CLASS_PREPARE for request 2
		0, 0, 0, 0, 0, 0, 0, 1, // thread
		1, 0, 0, 0, 0, 0, 0, 0, 6, // class 6
		0, 0, 0, 7, 'L', 'H', 'e', 'l', 'l', 'o', ';',
		0, 0, 0, 3, // verified and prepared
	}
	set, err := jdwp.DecodeEventSet(data, &jdwp.DefaultIDSizes)
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range set.Events {
		fmt.Printf("%v request=%d thread=%d %v %d %s status=%d\n", e.Kind, e.RequestID, e.Thread, e.TypeTag, e.RefType, e.Signature, e.Status)
	}
	// Output:
	// CLASS_PREPARE request=2 thread=1 class 6 LHello; status=3
}

// JDWP error replies come back as *CommandError, which carries the command
// and unwraps to the named ErrorCode.
func ExampleErrorCode() {
	var err error = &jdwp.CommandError{Command: "ThreadReference.Frames", Code: jdwp.ErrThreadNotSuspended}
	err = fmt.Errorf("stack of thread 7: %w", err)

	fmt.Println(err)
	fmt.Println(errors.Is(err, jdwp.ErrThreadNotSuspended), jdwp.Code(err).String())
	var ce *jdwp.CommandError
	if errors.As(err, &ce) {
		fmt.Println(ce.Command)
	}
	fmt.Println(jdwp.ErrorCode(999))
	// Output:
	// stack of thread 7: ThreadReference.Frames: JDWP error 13 (THREAD_NOT_SUSPENDED)
	// true THREAD_NOT_SUSPENDED
	// ThreadReference.Frames
	// JDWP error 999 (ERROR_999)
}

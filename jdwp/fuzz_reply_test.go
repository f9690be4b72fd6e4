package jdwp

import (
	"context"
	"errors"
	"net"
	"reflect"
	"testing"
	"time"
)

// FuzzReplyDecoders answers every command with the fuzz input as its reply
// body, at the id sizes the first byte picks, and calls every method of
// Conn that sends a command (all of them take a context and return an
// error). Whatever the VM sends, a method returns a result or an error:
// nothing panics, nothing hangs.
func FuzzReplyDecoders(f *testing.F) {
	f.Add([]byte{0})
	f.Add([]byte{0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 7})                       // a count of 1 and a short element
	f.Add([]byte{1, 0x7f, 0xff, 0xff, 0xff})                                      // a huge count
	f.Add([]byte{0, 0, 0, 0, 5, 'h', 'e', 'l', 'l', 'o', 0, 0, 0, 2, 0, 0, 0, 3}) // a string then ints
	f.Add(append([]byte{3}, make([]byte, 64)...))
	methods := replyMethods()
	if len(methods) < 50 {
		f.Fatalf("found only %d Conn methods that send commands", len(methods))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		sizes := pickSizes(data[0])
		body := data[1:]
		vmSide, client := net.Pipe()
		defer vmSide.Close()
		go func() {
			for {
				p, err := ReadPacket(vmSide, 0)
				if err != nil {
					return
				}
				if err := WritePacket(vmSide, &Packet{ID: p.ID, Flags: FlagReply, Data: body}); err != nil {
					return
				}
			}
		}()
		c := NewConn(client, &Options{IDSizes: sizes})
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cv := reflect.ValueOf(c)
		for _, m := range methods {
			args := []reflect.Value{reflect.ValueOf(ctx)}
			n := m.Type.NumIn()
			if m.Type.IsVariadic() {
				n-- // no variadic arguments
			}
			for i := 2; i < n; i++ {
				args = append(args, reflect.Zero(m.Type.In(i)))
			}
			out := cv.Method(m.Index).Call(args)
			err, _ := out[len(out)-1].Interface().(error)
			if errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("%s hung on reply % x", m.Name, body)
			}
		}
	})
}

// replyMethods are Conn's methods that take a context first and return an
// error last, except those that end the connection.
func replyMethods() []reflect.Method {
	ctxType := reflect.TypeOf((*context.Context)(nil)).Elem()
	errType := reflect.TypeOf((*error)(nil)).Elem()
	t := reflect.TypeOf(&Conn{})
	var out []reflect.Method
	for i := 0; i < t.NumMethod(); i++ {
		m := t.Method(i)
		mt := m.Type
		if mt.NumIn() < 2 || mt.In(1) != ctxType || mt.NumOut() == 0 || mt.Out(mt.NumOut()-1) != errType {
			continue
		}
		if m.Name == "Dispose" || m.Name == "Exit" {
			continue // they end the connection: later calls would test nothing
		}
		hasFunc := false
		for j := 2; j < mt.NumIn(); j++ {
			hasFunc = hasFunc || mt.In(j).Kind() == reflect.Func
		}
		if !hasFunc {
			out = append(out, m)
		}
	}
	return out
}

package jdwp_test

import (
	"context"
	"fmt"
	"log"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

// Ask every thread's name at once instead of one round trip each: the
// commands go out together and the replies are read in order.
func ExampleConn_Pipeline() {
	ctx := context.Background()
	conn, err := jdwp.Dial(ctx, "127.0.0.1:8000", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	threads, err := conn.AllThreads(ctx)
	if err != nil {
		log.Fatal(err)
	}
	p, err := conn.Pipeline(ctx)
	if err != nil {
		log.Fatal(err)
	}
	names := make([]*jdwp.Future[string], len(threads))
	for i, t := range threads {
		names[i] = p.ThreadName(t)
	}
	for _, f := range names {
		name, err := f.Wait(ctx)
		if jdwp.Code(err) == jdwp.ErrInvalidThread {
			continue // the thread ended meanwhile
		} else if err != nil {
			log.Fatal(err)
		}
		fmt.Println(name)
	}
}

package mirror_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
)

// Mirror a VM started with
// -agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=127.0.0.1:8000
// and ask it about a class: what it declares, what it implements, and which
// methods a call to size() could mean.
func ExampleVM() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := jdwp.Dial(ctx, "127.0.0.1:8000", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	vm := mirror.New(conn, mirror.Config{Context: ctx})

	list, err := vm.ClassBySignature(ctx, "Ljava/util/ArrayList;")
	if err != nil {
		log.Fatal(err) // wraps javalang.ErrUnknownName when no such class is loaded
	}
	isList, err := vm.Subtype(ctx, "Ljava/util/ArrayList;", "Ljava/util/List;")
	if err != nil {
		log.Fatal(err)
	}
	fields, err := vm.FieldChain(ctx, list)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("ArrayList is a List: %v; %d fields with its superclasses'\n", isList, len(fields))

	sizes, err := vm.MethodsNamed(ctx, list, "size")
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range sizes { // the most derived first
		fmt.Println(m.Class, m.Name+m.Signature, "interface:", m.Interface)
	}
}

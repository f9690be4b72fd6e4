package bridge

import (
	"fmt"
	"testing"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// TestPassThroughClassObjectAfterClose: a debugger learns a class object's
// id, closes its connection without Dispose and attaches again; the id
// answers INVALID_OBJECT as from a fresh agent (issue 25: Apache Harmony's
// MultiSession ClassObjectIDTest failed only through port 8700), also
// while the control API watches the VM's threads.
func TestPassThroughClassObjectAfterClose(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ suspend, watch bool }{{false, false}, {true, false}, {true, true}} {
		suspend := c.suspend
		t.Run(fmt.Sprintf("suspend=%v,threadUpdates=%v", c.suspend, c.watch), func(t *testing.T) {
			t.Parallel()
			p := startPassPair(t, suspend, true)
			if c.watch {
				// The control API watches the VM's threads: the monitor's
				// polls take ids on the agent it resets too.
				v, err := p.m.VM(p.bridgedVM.Addr)
				if err != nil {
					t.Fatal(err)
				}
				v.SetThreadUpdates(true)
			}
			d, b := p.each(t, func(t *testing.T, addr string, _ *jvmtest.JVM) string {
				c := debugSession(t, addr)
				cls := classID(t, c, "Ljava/lang/Thread;")
				co, err := c.ClassObject(t.Context(), cls)
				if err != nil {
					t.Fatal(err)
				}
				c.Close() // no Dispose

				c = debugSession(t, addr)
				_, e1 := c.ObjectType(t.Context(), jdwp.ObjectID(co))
				sizes, err := c.IDSizes(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				w := jdwp.NewWriter(&sizes)
				w.ObjectID(jdwp.ObjectID(co))
				_, e2 := c.Command(t.Context(), jdwp.SetClassObjectReference, 1, w.Bytes())
				_, e3 := c.Methods(t.Context(), cls)
				got := fmt.Sprintf("ObjectReference.ReferenceType=%v ClassObjectReference.ReflectedType=%v Methods=%v",
					code(t, e1), code(t, e2), code(t, e3))
				leave(t, c)
				return got
			})
			if b != d {
				t.Errorf("a class object id of the previous debugger through the monitor: %s\n                                                  directly: %s", b, d)
			}
			t.Log(d)
		})
	}
}

package eval

import (
	"strings"
	"testing"

	"github.com/ddmbridge/ddmbridge/jdwp/lang/java/expr"
)

// TestReceiverOfLongText: completing after a megabyte of console text looks
// only at its end, and still finds the receiver there.
func TestReceiverOfLongText(t *testing.T) {
	text := strings.Repeat("1+", 300_000) + "list.get(0)"
	n, ok := ReceiverOf(text)
	if !ok {
		t.Fatal("no receiver found at the end of a long text")
	}
	if _, isCall := n.(*expr.Call); !isCall {
		t.Errorf("receiver %T, want the call list.get(0)", n)
	}
}

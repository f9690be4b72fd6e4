package jdwp

import "testing"

// PeekRequest reads what SetRequest writes.
func TestPeekRequest(t *testing.T) {
	w := NewWriter(&DefaultIDSizes)
	w.Byte(byte(EventBreakpoint))
	w.Byte(byte(SuspendEventThread))
	w.Int32(0)
	kind, suspend, ok := PeekRequest(w.Bytes())
	if !ok || kind != EventBreakpoint || suspend != SuspendEventThread {
		t.Errorf("PeekRequest = %v %v %v", kind, suspend, ok)
	}
	if _, _, ok := PeekRequest([]byte{2}); ok {
		t.Error("PeekRequest of one byte: ok")
	}
}

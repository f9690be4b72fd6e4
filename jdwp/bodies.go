package jdwp

import "fmt"

// Command bodies a proxy needs to write or read beside the Conn methods that
// send the same commands (the monitor's pass-through queues them without
// waiting, or reads what a debugger sent): the layouts live here once.

// EncodeClearRequest is EventRequest.Clear's command data: the event kind
// and the request id (what Conn.ClearRequest sends).
func EncodeClearRequest(kind EventKind, id int32) []byte {
	w := NewWriter(nil)
	writeClearRequest(w, kind, id)
	return w.Bytes()
}

func writeClearRequest(w *Writer, kind EventKind, id int32) {
	w.Byte(byte(kind))
	w.Int32(id)
}

// DecodeClearRequest reads EventRequest.Clear's command data.
func DecodeClearRequest(data []byte) (kind EventKind, id int32, err error) {
	r := NewReader(data, nil)
	kind, id = EventKind(r.Byte()), r.Int32()
	if err := r.Err(); err != nil {
		return 0, 0, fmt.Errorf("EventRequest.Clear command: %w", err)
	}
	return kind, id, nil
}

// DecodeSetRequestReply reads EventRequest.Set's reply: the new request's id.
func DecodeSetRequestReply(reply []byte) (id int32, err error) {
	r := NewReader(reply, nil)
	id = r.Int32()
	if err := r.Err(); err != nil {
		return 0, fmt.Errorf("EventRequest.Set reply: %w", err)
	}
	return id, nil
}

// EncodeObjectArg is the command data of a command whose one argument is an
// object id: ThreadReference.Suspend and .Resume (a thread id),
// ObjectReference.DisableCollection and .EnableCollection. sizes nil means
// DefaultIDSizes.
func EncodeObjectArg(o ObjectID, sizes *IDSizes) []byte {
	w := NewWriter(sizes)
	w.ObjectID(o)
	return w.Bytes()
}

// DecodeObjectArg reads the object id at the head of a command's data (see
// EncodeObjectArg). sizes nil means DefaultIDSizes.
func DecodeObjectArg(data []byte, sizes *IDSizes) (ObjectID, error) {
	r := NewReader(data, sizes)
	o := r.ObjectID()
	if err := r.Err(); err != nil {
		return 0, fmt.Errorf("object id argument: %w", err)
	}
	return o, nil
}

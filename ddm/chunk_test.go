package ddm

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

func TestParseSeveralChunks(t *testing.T) {
	a := Encode(&ThreadName{ID: 1, Name: "main"})
	b := Encode(&ThreadDied{ID: 2})
	c := Chunk{Type: TEST}
	got, err := ParseChunks(EncodeChunks(a, b, c), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, got, []Chunk{a, b, {Type: TEST, Data: []byte{}}})
}

func TestParseChunksRejectsBadFraming(t *testing.T) {
	good := EncodeChunks(Encode(&Wait{}))
	for name, payload := range map[string][]byte{
		"stray bytes":   append(append([]byte{}, good...), 1, 2, 3),
		"long length":   {'W', 'A', 'I', 'T', 0, 0, 0, 2, 0},
		"huge length":   {'W', 'A', 'I', 'T', 0xFF, 0xFF, 0xFF, 0xFF},
		"header only 7": {'W', 'A', 'I', 'T', 0, 0, 0},
	} {
		if _, err := ParseChunks(payload, ParseOptions{}); !errors.Is(err, ErrTruncated) {
			t.Errorf("%s: %v, want ErrTruncated", name, err)
		}
	}
}

func TestZLIB(t *testing.T) {
	inner := Encode(&ThreadStatus{Layout: LayoutDraft, Threads: []ThreadInfo{{ID: 1, Status: ThreadRunning}, {ID: 2, Status: ThreadWait}}})
	z := Compress(inner)
	if z.Type != ZLIB {
		t.Fatalf("Compress produced %s", z.Type)
	}
	got, err := ParseChunks(EncodeChunks(z, Encode(&ThreadDied{ID: 3})), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Type != THST || !bytes.Equal(got[0].Data, inner.Data) || got[1].Type != THDE {
		t.Fatalf("inflated: %v", got)
	}

	big := Compress(Chunk{Type: HPDS, Data: make([]byte, 1<<20)})
	if len(big.Data) > 4096 {
		t.Fatalf("1 MiB of zeros compressed to %d bytes", len(big.Data))
	}
	if _, err := ParseChunks(EncodeChunks(big), ParseOptions{MaxInflated: 1 << 19}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the bound: %v, want ErrTooLarge", err)
	}
	if got, err := ParseChunks(EncodeChunks(big), ParseOptions{MaxInflated: 1 << 20}); err != nil || len(got[0].Data) != 1<<20 {
		t.Errorf("at the bound: %v", err)
	}

	// A header that lies about the inflated size is rejected either way.
	lie := Compress(Chunk{Type: HPDS, Data: make([]byte, 100)})
	lie.Data[7] = 50
	if _, err := ParseChunks(EncodeChunks(lie), ParseOptions{}); !errors.Is(err, ErrBadZLIB) {
		t.Errorf("short claim: %v, want ErrBadZLIB", err)
	}
	lie.Data[7] = 200
	if _, err := ParseChunks(EncodeChunks(lie), ParseOptions{}); !errors.Is(err, ErrBadZLIB) {
		t.Errorf("long claim: %v, want ErrBadZLIB", err)
	}
	nested := Compress(Compress(inner))
	if _, err := ParseChunks(EncodeChunks(nested), ParseOptions{}); !errors.Is(err, ErrBadZLIB) {
		t.Errorf("nested: %v, want ErrBadZLIB", err)
	}
	garbage := Chunk{Type: ZLIB, Data: []byte{'T', 'H', 'S', 'T', 0, 0, 0, 4, 1, 2, 3}}
	if _, err := ParseChunks(EncodeChunks(garbage), ParseOptions{}); !errors.Is(err, ErrBadZLIB) {
		t.Errorf("garbage: %v, want ErrBadZLIB", err)
	}
}

func TestStr16(t *testing.T) {
	for _, s := range []string{"", "a", "héllo", "😀x", "日本"} {
		b := AppendStr16(nil, s)
		got, n, err := ReadStr16(append(b, 0xEE))
		if err != nil || got != s || n != len(b) {
			t.Errorf("%q: got %q n=%d err=%v", s, got, n, err)
		}
	}
	// Units, not bytes: "😀" is one rune, two units, four bytes.
	wantEqual(t, AppendStr16(nil, "😀"), []byte{0, 0, 0, 2, 0xD8, 0x3D, 0xDE, 0x00})
	if _, _, err := ReadStr16([]byte{0, 0, 0, 2, 0, 'a'}); !errors.Is(err, ErrShort) {
		t.Errorf("short str16: %v", err)
	}
	if _, _, err := ReadStr16([]byte{0xFF, 0xFF, 0xFF, 0xFF}); !errors.Is(err, ErrShort) {
		t.Errorf("4G-unit str16: %v", err)
	}
	if s, err := DecodeUTF16(EncodeUTF16("ok")); s != "ok" || err != nil {
		t.Errorf("DecodeUTF16: %q %v", s, err)
	}
	if _, err := DecodeUTF16([]byte{0}); err == nil {
		t.Error("odd UTF-16 accepted")
	}
}

func TestFailError(t *testing.T) {
	err := error(&FailError{Code: 0xFFFFFFFE, Message: "bad view"})
	if err.Error() != "ddm: VM failure code -2: bad view" {
		t.Errorf("got %q", err)
	}
	var fe *FailError
	if !errors.As(err, &fe) || !reflect.DeepEqual(fe, &FailError{Code: 0xFFFFFFFE, Message: "bad view"}) {
		t.Error("errors.As")
	}
}

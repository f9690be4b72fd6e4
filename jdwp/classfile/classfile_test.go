package classfile

import (
	"encoding/binary"
	"os"
	"strings"
	"testing"
)

func sample(t testing.TB) []byte {
	b, err := os.ReadFile("testdata/Sample.class")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// methodCode finds a method's Code attribute in a class file, with its pool.
func methodCode(t testing.TB, b []byte, name string) ([]byte, *Pool) {
	t.Helper()
	p, n, err := ParsePool(int(binary.BigEndian.Uint16(b[8:])), b[10:])
	if err != nil {
		t.Fatal(err)
	}
	r := b[10+n+6:]
	u16 := func() int { v := int(binary.BigEndian.Uint16(r)); r = r[2:]; return v }
	u32 := func() int { v := int(binary.BigEndian.Uint32(r)); r = r[4:]; return v }
	r = r[2*u16():] // interfaces
	skipMembers := func(want string) []byte {
		var code []byte
		for i, n := 0, u16(); i < n; i++ {
			r = r[2:]
			mname := p.UTF8(uint16(u16()))
			r = r[2:]
			for j, m := 0, u16(); j < m; j++ {
				attr := p.UTF8(uint16(u16()))
				l := u32()
				if attr == "Code" && mname == want {
					clen := int(binary.BigEndian.Uint32(r[4:]))
					code = r[8 : 8+clen]
				}
				r = r[l:]
			}
		}
		return code
	}
	skipMembers("")
	return skipMembers(name), p
}

func TestThisClassAndPool(t *testing.T) {
	b := sample(t)
	name, err := ThisClass(b)
	if err != nil || name != "Sample" {
		t.Fatalf("ThisClass = %q, %v", name, err)
	}
	_, p := methodCode(t, b, "run")
	var strs []string
	for i := range p.Entries {
		if p.Entries[i].Tag == TagString {
			strs = append(strs, p.Describe(uint16(i)))
		}
	}
	if !strings.Contains(strings.Join(strs, " "), `"hé\x00"`) {
		t.Errorf("string constants %v lack the modified-UTF-8 one", strs)
	}
	if _, err := ThisClass([]byte("not a class file")); err == nil {
		t.Error("garbage accepted")
	}
}

func TestDisassemble(t *testing.T) {
	code, p := methodCode(t, sample(t), "run")
	ins, err := Disassemble(code, p)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	invokes := 0
	for _, in := range ins {
		text.WriteString(in.String() + "\n")
		if in.IsInvoke() {
			invokes++
		}
	}
	for _, want := range []string{"tableswitch", "lookupswitch", "{ 1: ", "100000: ", "multianewarray", "[[I, 2",
		"getstatic       java/lang/System.out:Ljava/io/PrintStream;", "invokestatic    java/lang/Math.max:(II)I",
		"invokevirtual   java/io/PrintStream.println:(Ljava/lang/String;)V", "iinc            2, 1", "invokedynamic"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("disassembly lacks %q:\n%s", want, text.String())
		}
	}
	if invokes != 3 {
		t.Errorf("%d invoke instructions, want 3 (valueOf, max, println)", invokes)
	}
	if _, err := Disassemble([]byte{0xaa, 0, 0}, nil); err == nil {
		t.Error("a truncated tableswitch decoded")
	}
}

func FuzzDisassemble(f *testing.F) {
	code, _ := methodCode(f, sample(f), "run")
	f.Add(code)
	f.Add([]byte{0xc4, 0x84, 0, 1, 0, 2})
	f.Add([]byte{0xab, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, code []byte) {
		Disassemble(code, nil)
	})
}

func FuzzPool(f *testing.F) {
	b := sample(f)
	f.Add(int(binary.BigEndian.Uint16(b[8:])), b[10:])
	f.Add(3, []byte{1, 0, 1, 'x', 7, 0, 1})
	f.Fuzz(func(t *testing.T, count int, data []byte) {
		p, _, err := ParsePool(count, data)
		if err != nil {
			return
		}
		for i := range p.Entries {
			p.Describe(uint16(i))
			p.Member(uint16(i))
		}
	})
}

func FuzzThisClass(f *testing.F) {
	f.Add(sample(f))
	f.Fuzz(func(t *testing.T, b []byte) { ThisClass(b) })
}

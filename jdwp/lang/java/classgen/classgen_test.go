package classgen_test

import (
	"context"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp/classfile"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/java/classgen"
)

// sample builds gen/Pick implementing Supplier: get() returns "hi…" with a
// supplementary character, and the static pick(Object) branches on a Boolean.
func sample(t testing.TB) []byte {
	c := classgen.New("gen/Pick", "java/lang/Object", "java/util/function/Supplier")
	init := c.Method(classgen.AccPublic, "<init>", "()V")
	init.Load("Ljava/lang/Object;", 0)
	init.Invoke(classgen.Invokespec, "java/lang/Object", "<init>", "()V")
	init.Op(classgen.Return)

	get := c.Method(classgen.AccPublic, "get", "()Ljava/lang/Object;")
	get.String("hi \U0001F600 \x00")
	get.Op(classgen.Areturn)

	pick := c.Method(classgen.AccPublic|classgen.AccStatic, "pick", "(Ljava/lang/Object;J)Ljava/lang/Object;")
	no, end := pick.NewLabel(), pick.NewLabel()
	pick.Load("Ljava/lang/Object;", 0)
	pick.Type(classgen.Checkcast, "java/lang/Boolean")
	pick.Invoke(classgen.Invokevirt, "java/lang/Boolean", "booleanValue", "()Z")
	pick.Jump(classgen.Ifeq, no)
	pick.Load("J", 1)
	pick.Long(1 << 40)
	pick.Op(classgen.Pop2)
	pick.Invoke(classgen.Invokestat, "java/lang/Long", "valueOf", "(J)Ljava/lang/Long;")
	pick.Jump(classgen.Goto, end)
	pick.Mark(no)
	pick.Int(100000)
	pick.Invoke(classgen.Invokestat, "java/lang/Integer", "valueOf", "(I)Ljava/lang/Integer;")
	pick.Mark(end)
	pick.Op(classgen.Areturn)
	b, err := c.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWriteParses reads a written class back with jdwp/classfile.
func TestWriteParses(t *testing.T) {
	b := sample(t)
	if name, err := classfile.ThisClass(b); err != nil || name != "gen/Pick" {
		t.Fatalf("ThisClass = %q, %v", name, err)
	}
	if v := binary.BigEndian.Uint16(b[6:]); v != classgen.Version {
		t.Errorf("version %d", v)
	}
	p, _, err := classfile.ParsePool(int(binary.BigEndian.Uint16(b[8:])), b[10:])
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for i := 1; i < 64; i++ {
		if s := p.Describe(uint16(i)); s != "" {
			texts = append(texts, s)
		}
	}
	all := strings.Join(texts, "\n")
	for _, want := range []string{"java/lang/Boolean", "booleanValue", "java/util/function/Supplier", "hi \U0001F600"} {
		if !strings.Contains(all, want) {
			t.Errorf("constant pool lacks %q:\n%s", want, all)
		}
	}
}

// TestLoadsInJVM loads a written class in HotSpot (which verifies it) and
// runs its methods.
func TestLoadsInJVM(t *testing.T) {
	jvmtest.RequireJava(t)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "gen"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "gen", "Pick.class"), sample(t), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	drv, err := jvmtest.CompileFiles(ctx, map[string][]byte{"Drive.java": []byte(`
public class Drive {
    public static void main(String[] a) throws Exception {
        Class<?> c = Class.forName("gen.Pick");
        Object s = ((java.util.function.Supplier<?>) c.getConstructor().newInstance()).get();
        System.out.println(s.equals("hi \uD83D\uDE00 \u0000") + " " + s.toString().length());
        java.lang.reflect.Method m = c.getMethod("pick", Object.class, long.class);
        System.out.println(m.invoke(null, true, 5L) + " " + m.invoke(null, false, 5L));
    }
}`)})
	if err != nil {
		t.Fatal(err)
	}
	java, err := jvmtest.FindTool("java")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(ctx, java, "-Xverify:all", "-cp", drv+string(os.PathListSeparator)+dir, "Drive").CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != "true 7\n5 100000" {
		t.Errorf("output %q", got)
	}
}

// TestErrors: misuse is an error from Bytes, not a bad class file.
func TestErrors(t *testing.T) {
	for what, build := range map[string]func(m *classgen.Code){
		"underflow":      func(m *classgen.Code) { m.Op(classgen.Pop); m.Op(classgen.Return) },
		"falls off":      func(m *classgen.Code) { m.Op(classgen.AconstNull) },
		"unmarked label": func(m *classgen.Code) { m.Jump(classgen.Goto, m.NewLabel()) },
		"depths differ": func(m *classgen.Code) {
			l := m.NewLabel()
			m.Op(classgen.AconstNull)
			m.Jump(classgen.Ifeq, l)
			m.Op(classgen.AconstNull)
			m.Mark(l)
			m.Op(classgen.Return)
		},
		"operands": func(m *classgen.Code) { m.Op(classgen.Getfield); m.Op(classgen.Return) },
		"handler never marked": func(m *classgen.Code) {
			start := m.Here()
			m.Op(classgen.AconstNull)
			m.Op(classgen.Athrow)
			m.Handler(start, m.Here(), m.NewLabel(), "java/lang/Exception")
		},
		"long constant": func(m *classgen.Code) {
			m.String(strings.Repeat("é", 40000))
			m.Op(classgen.Pop)
			m.Op(classgen.Return)
		},
	} {
		c := classgen.New("gen/Bad", "java/lang/Object")
		build(c.Method(classgen.AccStatic, "f", "()V"))
		if _, err := c.Bytes(); err == nil {
			t.Errorf("%s: no error", what)
		}
	}
}

func TestDescriptors(t *testing.T) {
	if n := classgen.ArgSlots("(IJ[Ljava/lang/String;D)V"); n != 6 {
		t.Errorf("ArgSlots = %d", n)
	}
	if n := classgen.ArgSlots("(Lbroken"); n != 0 {
		t.Errorf("ArgSlots of a broken descriptor = %d", n)
	}
}

// TestHandlers writes an exception table: one entry per Handler over a
// non-empty range (an empty one has none), its target marked with the
// exception on the stack.
func TestHandlers(t *testing.T) {
	c := classgen.New("gen/Catch", "java/lang/Object")
	m := c.Method(classgen.AccStatic|classgen.AccPublic, "f", "()Ljava/lang/Object;")
	start := m.Here()
	m.Op(classgen.AconstNull)
	m.Op(classgen.Athrow)
	end := m.Here()
	h := m.NewLabel()
	m.Handler(start, end, h, "java/lang/RuntimeException")
	m.Handler(start, end, h, "") // any
	m.Handler(end, end, h, "java/lang/Error")
	m.MarkHandler(h)
	m.Op(classgen.Areturn)
	b, err := c.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	// The method's code ends with: 2 entries of 8 bytes, 0 attributes,
	// then the class's 0 attributes.
	tail := b[len(b)-2-2-2-16:]
	if n := binary.BigEndian.Uint16(tail); n != 2 {
		t.Fatalf("exception table of %d entries, want 2: % x", n, tail)
	}
	first := tail[2:10]
	if s, e, target := binary.BigEndian.Uint16(first), binary.BigEndian.Uint16(first[2:]), binary.BigEndian.Uint16(first[4:]); s != 0 || e != 2 || target != 2 {
		t.Errorf("entry [%d, %d) -> %d, want [0, 2) -> 2", s, e, target)
	}
	if any := binary.BigEndian.Uint16(tail[16:]); any != 0 {
		t.Errorf("the catch-any entry names class %d", any)
	}
}

package fngen

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp/classfile"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/java/expr"
)

// TestRuntimeMatchesSource recompiles Rt.java as go:generate does and
// checks the embedded class is what it gives, so the two cannot drift.
func TestRuntimeMatchesSource(t *testing.T) {
	jvmtest.RequireJava(t)
	javac, err := jvmtest.FindTool("javac")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	if out, err := exec.CommandContext(ctx, javac, "--release", "8", "-g:none", "-d", dir, "Rt.java").CombinedOutput(); err != nil {
		t.Fatalf("javac: %v: %s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "ddmbridge", "rt", "Rt.class"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, Runtime) {
		t.Fatal("Rt.class differs from what Rt.java compiles to: run go generate ./jdwp/lang/java/fngen")
	}
	if name, err := classfile.ThisClass(Runtime); err != nil || name != RuntimeName {
		t.Fatalf("the runtime class is %q (%v), not %s", name, err, RuntimeName)
	}
}

// fn builds the Func the engine would for src (a lambda or method
// reference): parameters by name, the names in captures as captured values
// in that order, and classes by their source names.
func fn(t *testing.T, src string, captures []string, classes map[string]string) *expr.Func {
	t.Helper()
	f, err := funcOf(src, captures, classes)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func funcOf(src string, captures []string, classes map[string]string) (*expr.Func, error) {
	n, err := expr.Parse(src)
	if err != nil {
		return nil, err
	}
	f := &expr.Func{Node: n, Refs: map[expr.Node]expr.Ref{}}
	var params []string
	if l, ok := n.(*expr.Lambda); ok {
		params = l.Params
	}
	index := func(list []string, s string) int {
		for i, x := range list {
			if x == s {
				return i
			}
		}
		return -1
	}
	var walk func(n expr.Node)
	name := func(n expr.Node) bool {
		var s string
		switch x := n.(type) {
		case *expr.Name:
			s = x.Name
		case *expr.Select:
			s = x.String()
		case *expr.This:
			s = "this"
		default:
			return false
		}
		switch {
		case index(params, s) >= 0:
			f.Refs[n] = expr.Ref{Kind: expr.RefParam, Index: index(params, s)}
		case index(captures, s) >= 0:
			f.Refs[n] = expr.Ref{Kind: expr.RefCapture, Index: index(captures, s)}
		case classes[s] != "":
			f.Refs[n] = expr.Ref{Kind: expr.RefClass, Class: classes[s]}
		default:
			return false
		}
		return true
	}
	walk = func(n expr.Node) {
		if name(n) {
			return
		}
		switch x := n.(type) {
		case *expr.Lambda:
			walk(x.Body)
		case *expr.MethodRef:
			walk(x.X)
		case *expr.Select:
			walk(x.X)
		case *expr.Call:
			if s, ok := x.Fun.(*expr.Select); ok {
				walk(s.X)
			}
			for _, a := range x.Args {
				walk(a)
			}
		case *expr.New:
			f.Refs[n] = expr.Ref{Kind: expr.RefClass, Class: classes[x.Type]}
			for _, a := range x.Args {
				walk(a)
			}
		case *expr.Cast:
			if c := classes[x.Type]; c != "" {
				f.Refs[n] = expr.Ref{Kind: expr.RefClass, Class: c}
			}
			walk(x.X)
		case *expr.InstanceOf:
			f.Refs[n] = expr.Ref{Kind: expr.RefClass, Class: classes[x.Type]}
			walk(x.X)
		case *expr.ClassLit:
			f.Refs[n] = expr.Ref{Kind: expr.RefClass, Class: classes[x.Type]}
		case *expr.Binary:
			walk(x.X)
			walk(x.Y)
		case *expr.Unary:
			walk(x.X)
		case *expr.Cond:
			walk(x.Cond)
			walk(x.Then)
			walk(x.Else)
		case *expr.Index:
			walk(x.X)
			walk(x.Index)
		}
	}
	walk(n)
	return f, nil
}

// FuzzClass compiles whatever lambda or method reference parses: Class
// fails with an error or writes a class file that reads back, never panics.
func FuzzClass(f *testing.F) {
	for _, s := range []string{"s -> s.length() > limit && !s.isEmpty()", "String::length", "(x, y) -> x * y + 7 / 2 - (x > y ? x : -y) % 4",
		`() -> "x" + 1 + 2.5 + 'c' + (7 / 2) + (1L << 40)`, "out::println", "StringBuilder::new", "a -> a[1] + a.length",
		"(a, b) -> Math.max(a, b) + (a instanceof CharSequence) + (int) 2.9 + ((String) \"s\").length()", "o -> this.f(o) || o == null"} {
		f.Add(s, "(Ljava/lang/Object;)Ljava/lang/Object;")
	}
	f.Add("(x, y) -> x + y", "(IJ)D")
	f.Add("() -> 1", "()V")
	f.Fuzz(func(t *testing.T, src, desc string) {
		fn, err := funcOf(src, []string{"limit", "out", "this"}, jl)
		if err != nil {
			return
		}
		switch fn.Node.(type) {
		case *expr.Lambda, *expr.MethodRef:
		default:
			return
		}
		name, b, err := Class(Package, "java/util/function/Function", "apply", desc, fn)
		if err != nil {
			return
		}
		if got, err := classfile.ThisClass(b); err != nil || got != name {
			t.Fatalf("%q: the class reads back as %q (%v), not %s", src, got, err, name)
		}
	})
}

var jl = map[string]string{
	"String": "Ljava/lang/String;", "Math": "Ljava/lang/Math;", "Integer": "Ljava/lang/Integer;",
	"StringBuilder": "Ljava/lang/StringBuilder;", "Long": "Ljava/lang/Long;", "java.util.List": "Ljava/util/List;",
	"CharSequence": "Ljava/lang/CharSequence;",
}

// TestLambdasRunInJVM compiles lambdas and method references and runs them
// in HotSpot through their interfaces (streams included): captures,
// boxing at the boundary, Java's arithmetic and concatenation, overloads,
// static and instance method references, constructors, exceptions.
func TestLambdasRunInJVM(t *testing.T) {
	jvmtest.RequireJava(t)
	dir := t.TempDir()
	write := func(name string, b []byte) {
		p := filepath.Join(dir, filepath.FromSlash(name)+".class")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(RuntimeName, Runtime)
	const (
		pred  = "java/util/function/Predicate"
		fun   = "java/util/function/Function"
		ibin  = "java/util/function/IntBinaryOperator"
		supp  = "java/util/function/Supplier"
		cons  = "java/util/function/Consumer"
		bifn  = "java/util/function/BiFunction"
		tolng = "java/util/function/ToLongFunction"
	)
	cases := []struct {
		iface, sam, desc, src string
		captures              []string
	}{
		{pred, "test", "(Ljava/lang/Object;)Z", "s -> s.length() > limit && !s.isEmpty()", []string{"limit"}},
		{fun, "apply", "(Ljava/lang/Object;)Ljava/lang/Object;", "String::length", nil},
		{ibin, "applyAsInt", "(II)I", "(x, y) -> x * y + 7 / 2 - (x > y ? x : -y) % 4", nil},
		{supp, "get", "()Ljava/lang/Object;", `() -> "x" + 1 + 2.5 + 'c' + (7 / 2) + (1L << 40) + Integer.MAX_VALUE + null + (0.1f + 0.2f)`, nil},
		{cons, "accept", "(Ljava/lang/Object;)V", "out::println", []string{"out"}},
		{bifn, "apply", "(Ljava/lang/Object;Ljava/lang/Object;)Ljava/lang/Object;", "(a, b) -> Math.max(a, b) + \":\" + String.valueOf(a == b) + (a instanceof CharSequence) + (int) 2.9 + ((String) \"s\").length()", nil},
		{tolng, "applyAsLong", "(Ljava/lang/Object;)J", "o -> o.length() * 3000000000L", nil},
		{fun, "apply", "(Ljava/lang/Object;)Ljava/lang/Object;", "StringBuilder::new", nil},
		{fun, "apply", "(Ljava/lang/Object;)Ljava/lang/Object;", "x -> Integer.parseInt(x)", nil},
		{fun, "apply", "(Ljava/lang/Object;)Ljava/lang/Object;", "xs -> xs.size() + xs.get(0).toUpperCase() + new StringBuilder(\"ab\").reverse() + String.format(\"%d-%s\", 4, \"z\")", nil},
		{fun, "apply", "(Ljava/lang/Object;)Ljava/lang/Object;", "a -> a[1] + a.length", nil},
	}
	var names []string
	for _, c := range cases {
		name, b, err := Class(Package, c.iface, c.sam, c.desc, fn(t, c.src, c.captures, jl))
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		again, _, _ := Class(Package, c.iface, c.sam, c.desc, fn(t, c.src, c.captures, jl))
		if again != name {
			t.Errorf("%s: the name is not stable: %s then %s", c.src, name, again)
		}
		write(name, b)
		names = append(names, strings.ReplaceAll(name, "/", "."))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	drv, err := jvmtest.CompileFiles(ctx, map[string][]byte{"Drive.java": []byte(`
import java.util.*;
import java.util.function.*;
import java.util.stream.*;

@SuppressWarnings({"unchecked", "rawtypes"})
public class Drive {
    static String[] names;
    static Object make(int i, Object... caps) throws Exception {
        return Class.forName(names[i]).getConstructor(Object[].class).newInstance((Object) caps);
    }
    public static void main(String[] a) throws Exception {
        names = a;
        Predicate p = (Predicate) make(0, 3);
        System.out.println(p.test("abcd") + " " + p.test("ab"));
        System.out.println(Stream.of("a", "bb", "ccc").map((Function) make(1)).collect(Collectors.toList()));
        System.out.println(((IntBinaryOperator) make(2)).applyAsInt(6, 7));
        System.out.println(((Supplier) make(3)).get());
        Arrays.asList("one", "two").forEach((Consumer) make(4, System.out));
        System.out.println(((BiFunction) make(5)).apply(3, 4L));
        System.out.println(((ToLongFunction) make(6)).applyAsLong("abc"));
        System.out.println(((Function) make(7)).apply("abc").getClass().getName());
        try {
            ((Function) make(8)).apply("zz");
        } catch (NumberFormatException e) {
            System.out.println("thrown " + e.getMessage());
        }
        System.out.println(((Function) make(9)).apply(Arrays.asList("q", "r")));
        System.out.println(((Function) make(10)).apply(new int[] {5, 6, 7}));
    }
}`)})
	if err != nil {
		t.Fatal(err)
	}
	java, err := jvmtest.FindTool("java")
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"-Xverify:all", "-cp", drv + string(os.PathListSeparator) + dir, "Drive"}, names...)
	out, err := exec.CommandContext(ctx, java, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want := []string{
		"true false",
		"[1, 2, 3]",
		"48", // 42 + 3 - (-7 % 4 = -3)
		"x12.5c31099511627776" + "2147483647" + "null" + "0.3",
		"one", "two",
		"4:false" + "false" + "2" + "1",
		"9000000000",
		"java.lang.StringBuilder",
		`thrown For input string: "zz"`,
		"2Qba4-z",
		"9", // 6 + 3: numbers add
	}
	if got := strings.Split(strings.TrimSpace(string(out)), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("output:\n%s\nwant:\n%s", out, strings.Join(want, "\n"))
	}
}

package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
	"github.com/ddmbridge/ddmbridge/jdwp/localjvm"
)

// TestJVMsCommand lists a real JVM with its JDWP address, as the attach
// picker shows it.
func TestJVMsCommand(t *testing.T) {
	jvmtest.RequireJava(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir, err := jvmtest.CompileFiles(ctx, map[string][]byte{"Picked.java": []byte(`public class Picked { public static void main(String[] a) throws Exception { System.out.println("READY"); Thread.sleep(Long.MAX_VALUE); } }`)})
	if err != nil {
		t.Fatal(err)
	}
	vm := jvmtest.StartT(t, jvmtest.Options{ClassPath: []string{dir}, MainClass: "Picked", ReadyLine: "READY"})
	var ps []localjvm.Process
	if err := json.Unmarshal([]byte(runCLI(t, "jvms", "--json")), &ps); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range ps {
		found = found || p.Main == "Picked" && p.Address == vm.Addr
	}
	if !found {
		t.Errorf("jvms --json does not list Picked at %s: %+v", vm.Addr, ps)
	}
	if out := runCLI(t, "jvms"); !strings.Contains(out, "Picked") || !strings.Contains(out, vm.Addr) {
		t.Errorf("jvms table:\n%s", out)
	}
}

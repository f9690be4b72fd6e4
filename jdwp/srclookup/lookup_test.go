package srclookup

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ddmbridge/ddmbridge/jdwp/lang"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/java"
)

// TestIndex finds workspace files by package declaration (a package word in
// a comment does not count) and JDK sources in src.zip.
func TestIndex(t *testing.T) {
	ws := t.TempDir()
	write := func(rel, text string) string {
		p := filepath.Join(ws, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	order := write("x/y/Order.java", "/* package wrong; */\n// package wronger;\npackage com.shop;\nclass Order {}\n")
	main := write("Main.java", "class Main {}\n")
	write(".hidden/Secret.java", "package com.shop;\nclass Secret {}\n")
	jdk := JDKSources("")
	if len(jdk) == 0 {
		t.Fatal("no JDK lib/src.zip found (install openjdk-17-source)")
	}
	ix, err := New(context.Background(), Sources{Languages: lang.Set{java.Lang}, Folders: []string{ws}, Archives: jdk})
	if err != nil {
		t.Fatal(err)
	}
	if f, ok := ix.Find("com/shop/Order.java"); !ok || f.Path != order {
		t.Errorf("Order.java: %+v %v, want %s", f, ok, order)
	}
	if f, ok := ix.Find("Main.java"); !ok || f.Path != main {
		t.Errorf("Main.java: %+v %v", f, ok)
	}
	if _, ok := ix.Find("com/shop/Secret.java"); ok {
		t.Error("a file in a hidden folder was indexed")
	}
	f, ok := ix.Find("java/lang/String.java")
	if !ok || f.Archive == "" || f.Origin() != "src.zip" {
		t.Fatalf("String.java: %+v %v", f, ok)
	}
	text, err := Read(f)
	if err != nil || !containsAll(string(text), "package java.lang;", "public final class String") {
		t.Errorf("String.java text (%d bytes): %v", len(text), err)
	}
	if _, ok := ix.Find("java/lang/NoSuchThing.java"); ok {
		t.Error("found a source that does not exist")
	}
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

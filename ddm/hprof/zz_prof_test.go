package hprof

import (
	"bufio"
	"context"
	"os"
	"testing"
)

func TestZZStreamFile(t *testing.T) {
	name := os.Getenv("HPROF_FILE")
	if name == "" {
		t.Skip()
	}
	f, _ := os.Open(name)
	defer f.Close()
	s, err := StreamHistogram(context.Background(), bufio.NewReaderSize(f, 1), StreamOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(s.Objects)
}

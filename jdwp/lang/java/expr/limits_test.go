package expr

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
)

// hugeSum is "1+1+…+1" with n terms: what an editor sent when the issue was
// found (300k terms, 600 KB; the process died of a Go stack overflow).
func hugeSum(n int) string { return strings.Repeat("1+", n-1) + "1" }

// allocated runs f and returns the bytes it allocated.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestHugeExpressionsRefused: a 300k-term evaluate and a 250k-term
// setVariable value (an assignment's right side) get a syntax error naming
// the limit, cheaply, instead of ending the process.
func TestHugeExpressionsRefused(t *testing.T) {
	for _, tc := range []struct{ name, src string }{
		{"evaluate 300k terms", hugeSum(300_000)},
		{"setVariable 250k terms", "x = " + hugeSum(250_000)},
		{"long string concatenation", strings.Repeat(`"a" + `, 100_000) + `"a"`},
		{"method call chain", "s" + strings.Repeat(".trim()", 50_000)},
		{"index chain", "xs" + strings.Repeat("[0]", 50_000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			bytes := allocated(func() { _, err = EvalString(context.Background(), tc.src, newFakeEnv()) })
			var se *SyntaxError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), "tokens") {
				t.Fatalf("%d-byte input: err = %v, want a syntax error about the token limit", len(tc.src), err)
			}
			if len(err.Error()) > 1000 {
				t.Errorf("the error message is %d bytes: it should quote, not copy, the input", len(err.Error()))
			}
			// Bounded: about the input's tokens up to the limit, not the
			// hundreds of megabytes a tree of the whole input costs.
			if bytes > 16<<20 {
				t.Errorf("refusing a %d-byte input allocated %d MB", len(tc.src), bytes>>20)
			}
			t.Logf("%d bytes refused after allocating %d KB: %.120s", len(tc.src), bytes>>10, err)
		})
	}
}

// TestLongestExpressionEvaluates: an expression just under the token limit
// still parses, prints and evaluates (the evaluator's recursion along a
// left-deep chain holds), and the limit does not count the tokens a cast's
// lookahead scans twice.
func TestLongestExpressionEvaluates(t *testing.T) {
	terms := (MaxTokens + 1) / 2
	v, err := EvalString(context.Background(), hugeSum(terms), newFakeEnv())
	if err != nil {
		t.Fatal(err)
	}
	if v.Kind != KindInt || v.Int() != int64(terms) {
		t.Errorf("sum of %d ones = %v", terms, v)
	}
	if _, err := EvalString(context.Background(), hugeSum(terms+1), newFakeEnv()); err == nil {
		t.Errorf("%d tokens accepted, the limit is %d", 2*terms+1, MaxTokens)
	}
	// Parenthesised casts are tried, then parsed again: the tokens count once.
	nested := strings.Repeat("(", 150) + "1" + strings.Repeat(")", 150)
	src := strings.Repeat(nested+"+", 12) + nested // 12×303+301 = 3937 tokens
	if _, err := Parse(src); err != nil {
		t.Errorf("%d tokens refused: %v", 13*301+12, err)
	}
}

// TestEvalDepthBounded: a tree built by hand (not through Parse) deeper
// than the evaluator's bound gets an error, not a stack overflow.
func TestEvalDepthBounded(t *testing.T) {
	var n Node = &Lit{Value: IntValue(1)}
	for range maxEvalDepth + 10 {
		n = &Unary{Op: "-", X: n}
	}
	_, err := Eval(context.Background(), n, newFakeEnv())
	if err == nil || !strings.Contains(err.Error(), "nested deeper") {
		t.Fatalf("err = %v, want the depth limit", err)
	}
}

// TestParseStopsScanningAtLimit: refusing a huge input scans about
// MaxTokens tokens, not the whole input, so callers that parse many suffixes
// of a text (the debug console's completions) stay linear in it. A construct
// refused by name far past the limit is never reached.
func TestParseStopsScanningAtLimit(t *testing.T) {
	_, err := Parse(hugeSum(50*MaxTokens) + " + switch")
	if err == nil || !strings.Contains(err.Error(), "tokens") {
		t.Errorf("err = %v, want the token limit (the input was scanned to its end)", err)
	}
}

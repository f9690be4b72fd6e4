package dap

import (
	"strings"
	"testing"

	"github.com/ddmbridge/ddmbridge/jdwp/lang/java"
	godap "github.com/google/go-dap"
)

// TestExceptionBreakpoints stops on caught exceptions chosen by class
// patterns and by a condition, on an exception chosen by exceptionOptions,
// and on the uncaught one, describing each with exceptionInfo.
func TestExceptionBreakpoints(t *testing.T) {
	c := startSession(t, Config{})
	c.initialize()
	c.launch(launchArgs(t, "Exceptions"))
	c.send("setExceptionBreakpoints", map[string]any{"filters": []string{}, "filterOptions": []map[string]any{
		{"filterId": "caught", "condition": "java.lang.IllegalStateException, Exceptions.AppException"},
	}})
	if bps := expect[*godap.SetExceptionBreakpointsResponse](c).Body.Breakpoints; len(bps) != 1 || !bps[0].Verified {
		t.Fatalf("exception breakpoints %s", mustJSON(bps))
	}
	c.configurationDone()

	stop := c.expectStop("exception")
	if stop.Body.Text != "java.lang.IllegalStateException: state 0" || stop.Body.Description != "Paused on caught exception" {
		t.Errorf("first stop %+v", stop.Body)
	}
	th := stop.Body.ThreadId
	frameAt(t, c.stackTrace(th)[0], "Exceptions.thrower", line(t, "Exceptions.java", "throw-state"))
	c.send("exceptionInfo", map[string]any{"threadId": th})
	info := expect[*godap.ExceptionInfoResponse](c).Body
	if info.ExceptionId != "java.lang.IllegalStateException" || info.Description != "state 0" || info.BreakMode != "always" ||
		info.Details == nil || !strings.Contains(info.Details.StackTrace, "\tat Exceptions.thrower(Exceptions.java:") ||
		!strings.Contains(info.Details.StackTrace, "\tat Exceptions.main(Exceptions.java:") {
		t.Errorf("exceptionInfo %s", mustJSON(info))
	}
	if r := c.evaluate(c.stackTrace(th)[0].Id, `exception.getMessage() + "/" + i`); r.Result != `"state 0/0"` {
		t.Errorf("evaluate with exception bound: %s", r.Result)
	}

	c.send("continue", map[string]any{"threadId": th})
	expect[*godap.ContinueResponse](c)
	stop = c.expectStop("exception")
	if stop.Body.Text != "Exceptions$AppException: app 1" {
		t.Errorf("second stop %+v", stop.Body)
	}
	c.send("exceptionInfo", map[string]any{"threadId": th})
	info = expect[*godap.ExceptionInfoResponse](c).Body
	if info.Details == nil || len(info.Details.InnerException) != 1 || info.Details.InnerException[0].Message != "cause 1" {
		t.Errorf("exceptionInfo with a cause %s", mustJSON(info))
	}

	// A condition in Java, with the exception and the frame's locals.
	c.send("setExceptionBreakpoints", map[string]any{"filters": []string{}, "filterOptions": []map[string]any{
		{"filterId": "caught", "condition": "exception instanceof Exceptions.AppException && i > 3"},
	}})
	expect[*godap.SetExceptionBreakpointsResponse](c)
	c.send("continue", map[string]any{"threadId": th})
	expect[*godap.ContinueResponse](c)
	if stop = c.expectStop("exception"); stop.Body.Text != "Exceptions$AppException: app 4" {
		t.Errorf("conditional stop %+v", stop.Body)
	}

	// exceptionOptions name a class to stop on always; uncaught ones stop too.
	c.send("setExceptionBreakpoints", map[string]any{"filters": []string{"uncaught"}, "exceptionOptions": []map[string]any{
		{"path": []map[string]any{{"names": []string{"Java Exceptions"}}, {"names": []string{"java.lang.UnsupportedOperationException"}}}, "breakMode": "always"},
	}})
	expect[*godap.SetExceptionBreakpointsResponse](c)
	c.send("continue", map[string]any{"threadId": th})
	expect[*godap.ContinueResponse](c)
	if stop = c.expectStop("exception"); stop.Body.Text != "java.lang.UnsupportedOperationException: unsupported 5" {
		t.Errorf("exceptionOptions stop %+v", stop.Body)
	}
	c.send("continue", map[string]any{"threadId": th})
	expect[*godap.ContinueResponse](c)
	stop = c.expectStop("exception")
	if stop.Body.Text != "Exceptions$AppException: the end" || stop.Body.Description != "Paused on uncaught exception" {
		t.Errorf("uncaught stop %+v", stop.Body)
	}
	c.send("exceptionInfo", map[string]any{"threadId": th})
	if info = expect[*godap.ExceptionInfoResponse](c).Body; info.BreakMode != "unhandled" {
		t.Errorf("uncaught exceptionInfo %s", mustJSON(info))
	}
	c.send("continue", map[string]any{"threadId": th})
	expect[*godap.ContinueResponse](c)
	c.expectEnd(1)
}

func TestExceptionConditionParsing(t *testing.T) {
	inc, exc, cond, err := parseExcCondition("java.lang.*, !java.lang.Error, Foo$Bar", java.Lang.Engine())
	if err != nil || cond != nil || len(inc) != 2 || len(exc) != 1 {
		t.Errorf("patterns: %v %v %v %v", inc, exc, cond, err)
	}
	if _, _, cond, err := parseExcCondition("exception.getMessage() != null", java.Lang.Engine()); err != nil || cond == nil {
		t.Errorf("expression: %v %v", cond, err)
	}
	if _, _, _, err := parseExcCondition("a +", java.Lang.Engine()); err == nil {
		t.Error("a bad expression was accepted")
	}

}

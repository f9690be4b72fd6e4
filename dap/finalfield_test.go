package dap

import (
	"strings"
	"testing"

	godap "github.com/google/go-dap"
)

// TestFinalFieldNotAssigned assigns final fields as a user would, through
// setVariable, setExpression and evaluate, and is refused each time as JDI
// refuses (IllegalArgumentException "Cannot set value of final field"),
// before the new value is evaluated; the fields keep their values while a
// plain static and a plain local are still assigned (issue 24).
func TestFinalFieldNotAssigned(t *testing.T) {
	c := startSession(t, Config{})
	_, top := stopAt(t, c, "Values", "Values.java", "inspect")
	c.send("scopes", map[string]any{"frameId": top.Id})
	scopes := expect[*godap.ScopesResponse](c).Body.Scopes
	if len(scopes) != 2 || scopes[1].Name != "Static" {
		t.Fatalf("scopes %s", mustJSON(scopes))
	}
	const refused = "cannot set value of final field"

	// A static final field through the Static scope and setExpression.
	c.send("setVariable", map[string]any{"variablesReference": scopes[1].VariablesReference, "name": "CONST", "value": `"changed"`})
	c.expectError(ErrUnableToSetVariable, refused+" Values.CONST")
	for _, expression := range []string{"CONST", "Values.CONST"} {
		c.send("setExpression", map[string]any{"expression": expression, "value": `"changed"`, "frameId": top.Id})
		c.expectError(ErrUnableToSetVariable, refused+" Values.CONST")
	}
	// Through evaluate: simple and qualified names, compound assignment, and
	// an instance final field (Integer.value) of a local; the right-hand side
	// never runs.
	for _, expression := range []string{`CONST = "changed"`, `Values.CONST += "!"`, `boxed.value = 8`, `boxed.value++`, `CONST = String.valueOf(in = 1)`} {
		_, e := c.evaluateIn(top.Id, "repl", expression)
		if e == nil || e.Body.Error == nil || !strings.Contains(e.Body.Error.Format, refused) {
			t.Errorf("evaluate %s: %s, want an error saying %q", expression, mustJSON(e), refused)
		}
	}
	for expression, want := range map[string]string{"CONST": `"constant"`, "Values.CONST": `"constant"`, "boxed.value": "7", "in": "42"} {
		if r, e := c.evaluateIn(top.Id, "watch", expression); e != nil || r.Result != want {
			t.Errorf("%s after the refused assignments: %q %s, want %s", expression, r.Result, mustJSON(e), want)
		}
	}
	// What is not final is still assigned.
	if r, e := c.evaluateIn(top.Id, "repl", "staticLong = 5"); e != nil || r.Result != "5" {
		t.Errorf("staticLong = 5: %q %s", r.Result, mustJSON(e))
	}
	c.send("setVariable", map[string]any{"variablesReference": scopes[1].VariablesReference, "name": "staticLong", "value": "6"})
	if r := expect[*godap.SetVariableResponse](c).Body; r.Value != "6" {
		t.Errorf("set staticLong: %+v", r)
	}
}

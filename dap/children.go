package dap

import (
	"context"
	"errors"
	"fmt"
	"strings"

	godap "github.com/google/go-dap"
)

// Child sessions: the custom request attachVM asks the client, through the
// startDebugging reverse request, to open another debug session attached to
// another VM the monitor watches — so one debugging session can fan out to
// every process of an app. The child is an ordinary attach session with
// "vm" set; it inherits this session's sourcePaths and options.

func (s *session) attachVM(ctx context.Context, r *attachVMRequest) (*struct{}, error) {
	vm := strings.TrimSpace(r.Arguments.VM)
	if vm == "" {
		return nil, errors.New(`field "vm" is required: the id of a VM the monitor watches`)
	}
	if !s.client.SupportsStartDebuggingRequest {
		return nil, errors.New("the client cannot open child sessions (it does not announce supportsStartDebuggingRequest); start an attach session with \"vm\": " + vm + " instead")
	}
	name := r.Arguments.Name
	if name == "" {
		name = "VM " + vm
	}
	conf := map[string]any{"type": s.client.AdapterID, "request": "attach", "name": name, "vm": vm}
	if d := s.dbg; d != nil {
		conf["sourcePaths"] = d.srcs.sourcePaths
		if d.opts.EvaluateHoverMethods {
			conf["evaluateHoverMethods"] = true
		}
		if d.opts.HideSystemThreads {
			conf["hideSystemThreads"] = true
		}
		if d.opts.StepFilters != nil {
			conf["stepFilters"] = d.opts.StepFilters
		}
	}
	resp, err := s.reverseRequest(ctx, &godap.StartDebuggingRequest{
		Request:   godap.Request{ProtocolMessage: godap.ProtocolMessage{Type: "request"}, Command: "startDebugging"},
		Arguments: godap.StartDebuggingRequestArguments{Request: "attach", Configuration: conf},
	})
	if err != nil {
		return nil, fmt.Errorf("no answer to startDebugging: %w", err)
	}
	if e, ok := resp.(*godap.ErrorResponse); ok {
		msg := e.Message
		if e.Body.Error != nil {
			msg = e.Body.Error.Format
		}
		return nil, fmt.Errorf("the client could not start the session: %s", msg)
	}
	return nil, nil
}

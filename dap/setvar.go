package dap

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/eval"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
	godap "github.com/google/go-dap"
)

// setVariable and setExpression: assign to a local variable, a field (of an
// object or static) or an array element, as package jdwp/eval assigns; dap
// finds the variable a container's name stands for.

// containerLV finds the variable called name in a variables container.
func (d *debuggee) containerLV(ctx context.Context, c container, name string) (eval.LValue, *eval.Frame, error) {
	switch c := c.(type) {
	case *localsScope:
		env := d.ev().Frame(c.f)
		if name == "this" {
			return eval.LValue{}, nil, errors.New("this cannot be assigned")
		}
		lv, ok, err := env.LocalLV(ctx, name)
		if err != nil {
			return eval.LValue{}, nil, err
		}
		if !ok {
			return eval.LValue{}, nil, fmt.Errorf("no local variable %s is visible here", name)
		}
		return lv, env, nil
	case *staticsScope:
		fs, err := d.vm.DeclaredFields(ctx, c.class)
		if err != nil {
			return eval.LValue{}, nil, err
		}
		for _, f := range fs {
			if f.Name == name && f.ModBits&jdwp.AccStatic != 0 {
				env, err := d.stoppedEnv(ctx)
				return d.ev().FieldLV(ctx, 0, mirror.Field{FieldInfo: f, Class: c.class}), env, err
			}
		}
		return eval.LValue{}, nil, fmt.Errorf("no static field %s", name)
	case *objectVars:
		field, owner, _ := strings.Cut(name, " (")
		owner = strings.TrimSuffix(owner, ")")
		chain, err := d.vm.FieldChain(ctx, c.class)
		if err != nil {
			return eval.LValue{}, nil, err
		}
		for _, f := range chain {
			if f.Name != field {
				continue
			}
			if owner != "" {
				sig, _ := d.vm.Signature(ctx, f.Class)
				if javalang.SimpleTypeName(sig) != owner {
					continue
				}
			}
			env, err := d.stoppedEnv(ctx)
			return d.ev().FieldLV(ctx, c.obj, f), env, err
		}
		return eval.LValue{}, nil, fmt.Errorf("the object has no field %s", name)
	case *arrayVars:
		i, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(name, "["), "]"))
		if err != nil || i < 0 || i >= c.length {
			return eval.LValue{}, nil, fmt.Errorf("%s is not an element of the array of length %d", name, c.length)
		}
		env, err := d.stoppedEnv(ctx)
		return d.ev().ElementLV(c.arr, c.sig, i), env, err
	}
	return eval.LValue{}, nil, fmt.Errorf("variables of this kind cannot be set")
}

func (s *session) setVariable(ctx context.Context, r *godap.SetVariableRequest) (godap.SetVariableResponseBody, error) {
	d := s.dbg
	ctx = withHex(ctx, r.Arguments.Format)
	c, ok := d.refs.vars.get(r.Arguments.VariablesReference)
	if !ok {
		return godap.SetVariableResponseBody{}, fmt.Errorf("unknown reference %d (references are forgotten when the VM resumes)", r.Arguments.VariablesReference)
	}
	lv, env, err := d.containerLV(ctx, c, r.Arguments.Name)
	if err != nil {
		return godap.SetVariableResponseBody{}, asIs(fmt.Errorf("setVariable %s: %w", r.Arguments.Name, err))
	}
	v, err := eval.Assign(ctx, d.ev().Env(ctx, env), lv, r.Arguments.Value)
	if err != nil {
		return godap.SetVariableResponseBody{}, asIs(fmt.Errorf("setVariable %s: %w", r.Arguments.Name, err))
	}
	vr, err := d.exprVariable(ctx, r.Arguments.Name, "", v)
	if err != nil {
		return godap.SetVariableResponseBody{}, asIs(err)
	}
	return godap.SetVariableResponseBody{
		Value: vr.Value, Type: vr.Type, VariablesReference: vr.VariablesReference, IndexedVariables: vr.IndexedVariables,
	}, nil
}

// setExpression assigns to an expression that names a variable: a
// local or a field by simple name, obj.field, Class.staticField, arr[i].
func (s *session) setExpression(ctx context.Context, r *godap.SetExpressionRequest) (godap.SetExpressionResponseBody, error) {
	d := s.dbg
	ctx = withHex(ctx, r.Arguments.Format)
	env, err := d.requestEnv(ctx, r.Arguments.FrameId)
	if err != nil {
		return godap.SetExpressionResponseBody{}, err
	}
	lv, err := env.LV(ctx, r.Arguments.Expression)
	if err != nil {
		return godap.SetExpressionResponseBody{}, asIs(fmt.Errorf("setExpression %s: %w", r.Arguments.Expression, err))
	}
	v, err := eval.Assign(ctx, d.ev().Env(ctx, env), lv, r.Arguments.Value)
	if err != nil {
		return godap.SetExpressionResponseBody{}, asIs(fmt.Errorf("setExpression %s: %w", r.Arguments.Expression, err))
	}
	vr, err := d.exprVariable(ctx, "", r.Arguments.Expression, v)
	if err != nil {
		return godap.SetExpressionResponseBody{}, asIs(err)
	}
	return godap.SetExpressionResponseBody{
		Value: vr.Value, Type: vr.Type, VariablesReference: vr.VariablesReference, IndexedVariables: vr.IndexedVariables,
	}, nil
}

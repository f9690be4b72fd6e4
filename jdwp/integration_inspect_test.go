package jdwp_test

import (
	"slices"
	"testing"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

// testInspect stops main in Target.inspect (an instance method with locals of
// every kind) and, while it is stopped, reads and changes frames, locals,
// fields, arrays and strings and invokes methods. The program then prints what
// it sees, which proves the changes took effect in the VM.
func (d *debuggee) testInspect(t *testing.T) {
	ctx, c := d.ctx, d.c
	s := d.subscribe(t)
	e, bp := d.breakAt(t, s, "inspect", "inspect", scInspect)
	check(t, c.ClearRequest(ctx, jdwp.EventBreakpoint, bp))
	th := e.Thread
	if name := must(c.ThreadName(ctx, th))(t); name != "main" {
		t.Errorf("breakpoint thread = %q, want main", name)
	}
	if _, suspended, _ := c.ThreadStatus(ctx, th); !suspended {
		t.Error("breakpoint thread not suspended")
	}

	frames := must(c.Frames(ctx, th, 0, -1))(t)
	if n := must(c.FrameCount(ctx, th))(t); int(n) != len(frames) || n < 3 {
		t.Fatalf("FrameCount = %d, Frames = %d", n, len(frames))
	}
	var names []string
	for _, f := range frames[:3] {
		names = append(names, d.methodName(t, f.Location))
	}
	if !slices.Equal(names, []string{"inspect", "run", "main"}) || frames[0].Location != e.Location {
		t.Errorf("frames = %v at %v, want inspect, run, main at the breakpoint", names, frames[0].Location)
	}
	if d.line(t, frames[0].Location) != d.lines["inspect"] {
		t.Errorf("top frame line %d, want %d", d.line(t, frames[0].Location), d.lines["inspect"])
	}
	if one := must(c.Frames(ctx, th, 1, 1))(t); len(one) != 1 || one[0].Location != frames[1].Location {
		t.Errorf("Frames(1, 1) = %v, want [%v]", one, frames[1])
	}
	top := frames[0].ID
	this := must(c.ThisObject(ctx, th, top))(t)
	if this.Tag != jdwp.TagObject || this.ID == 0 || d.typeSignature(t, this.ID) != "LTarget;" {
		t.Errorf("ThisObject(inspect) = %+v, want a Target", this)
	}
	if st := must(c.ThisObject(ctx, th, frames[1].ID))(t); st.ID != 0 {
		t.Errorf("ThisObject(static run) = %+v, want null", st)
	}

	vt := must(c.VariableTable(ctx, d.target, d.methods["inspect"].ID))(t)
	slot := func(name string) jdwp.Variable {
		i := slices.IndexFunc(vt.Variables, func(v jdwp.Variable) bool { return v.Name == name })
		if i < 0 {
			t.Fatalf("no local %s", name)
		}
		return vt.Variables[i]
	}
	read := func(t *testing.T, names ...string) []jdwp.Value {
		var req []jdwp.SlotRequest
		for _, n := range names {
			v := slot(n)
			req = append(req, jdwp.SlotRequest{Slot: v.Slot, Tag: jdwp.TagForSignature(v.Signature)})
		}
		return must(c.FrameValues(ctx, th, top, req))(t)
	}
	var box jdwp.ObjectID

	t.Run("Locals", func(t *testing.T) {
		vals := read(t, "n", "x", "s", "big", "d", "box", "this")
		want := []jdwp.Value{jdwp.IntValue(7), jdwp.IntValue(14), {}, jdwp.LongValue(1 << 40), jdwp.DoubleValue(2.5)}
		for i, w := range want {
			if w.Tag != 0 && vals[i] != w {
				t.Errorf("local %d = %v, want %v", i, vals[i], w)
			}
		}
		if vals[2].Tag != jdwp.TagString || d.str(t, vals[2]) != "local" {
			t.Errorf("local s = %v, want the string \"local\"", vals[2])
		}
		if vals[5].Tag != jdwp.TagObject || d.typeSignature(t, vals[5].Object()) != "LTarget$Box;" {
			t.Errorf("local box = %v, want a Box", vals[5])
		}
		if vals[6].Object() != this.ID {
			t.Errorf("local this = %v, want %d", vals[6], this.ID)
		}
		box = vals[5].Object()

		check(t, c.SetFrameValues(ctx, th, top, []jdwp.SlotValue{{Slot: slot("x").Slot, Value: jdwp.IntValue(100)}}))
		if got := read(t, "x")[0]; got != jdwp.IntValue(100) {
			t.Errorf("x after SetFrameValues = %v, want 100", got)
		}
		_, err := c.FrameValues(ctx, th, top, []jdwp.SlotRequest{{Slot: 99, Tag: jdwp.TagInt}})
		wantCode(t, "FrameValues of slot 99", err, jdwp.ErrInvalidSlot)
	})
	if box == 0 {
		t.Fatal("no box local")
	}
	boxClass := d.class(t, "LTarget$Box;")
	boxField := map[string]jdwp.FieldID{}
	for _, f := range must(c.Fields(ctx, boxClass))(t) {
		boxField[f.Name] = f.ID
	}

	t.Run("InstanceFields", func(t *testing.T) {
		vals := must(c.FieldValues(ctx, this.ID, []jdwp.FieldID{d.fields["label"], d.fields["ratio"]}))(t)
		if !slices.Equal(vals, []jdwp.Value{jdwp.IntValue(5), jdwp.DoubleValue(0.5)}) {
			t.Errorf("FieldValues(this) = %v", vals)
		}
		check(t, c.SetFieldValues(ctx, this.ID, []jdwp.FieldValue{
			{Field: d.fields["label"], Value: jdwp.IntValue(77)},
			{Field: d.fields["ratio"], Value: jdwp.DoubleValue(-1.25)},
		}))
		vals = must(c.FieldValues(ctx, this.ID, []jdwp.FieldID{d.fields["label"], d.fields["ratio"]}))(t)
		if !slices.Equal(vals, []jdwp.Value{jdwp.IntValue(77), jdwp.DoubleValue(-1.25)}) {
			t.Errorf("FieldValues(this) after set = %v", vals)
		}
		check(t, c.SetFieldValues(ctx, box, []jdwp.FieldValue{{Field: boxField["w"], Value: jdwp.IntValue(10)}}))
		vals = must(c.FieldValues(ctx, box, []jdwp.FieldID{boxField["value"], boxField["w"], boxField["h"]}))(t)
		if d.str(t, vals[0]) != "v" || vals[1] != jdwp.IntValue(10) || vals[2] != jdwp.IntValue(4) {
			t.Errorf("FieldValues(box) = %v", vals)
		}
	})

	t.Run("StaticFields", func(t *testing.T) {
		names := []string{"staticInt", "staticLong", "staticFlag", "staticStr", "ints", "objs", "lock", "names"}
		var ids []jdwp.FieldID
		for _, n := range names {
			ids = append(ids, d.fields[n])
		}
		vals := must(c.StaticValues(ctx, d.target, ids))(t)
		if vals[0] != jdwp.IntValue(42) || vals[1] != jdwp.LongValue(-5) || vals[2] != jdwp.BoolValue(true) {
			t.Errorf("primitive statics = %v", vals[:3])
		}
		for i, tag := range []jdwp.Tag{jdwp.TagString, jdwp.TagArray, jdwp.TagArray, jdwp.TagObject, jdwp.TagObject} {
			if v := vals[3+i]; v.Tag != tag || v.IsNull() {
				t.Errorf("static %s = %v, want a non-null %c", names[3+i], v, tag)
			}
		}
		if d.str(t, vals[3]) != "hello" {
			t.Errorf("staticStr = %q", d.str(t, vals[3]))
		}
		if sig := d.typeSignature(t, vals[7].Object()); sig != "Ljava/util/ArrayList;" {
			t.Errorf("names is a %s", sig)
		}
		check(t, c.SetStaticValues(ctx, d.target, []jdwp.FieldValue{
			{Field: d.fields["staticInt"], Value: jdwp.IntValue(-43)},
			{Field: d.fields["staticLong"], Value: jdwp.LongValue(1 << 50)},
			{Field: d.fields["staticFlag"], Value: jdwp.BoolValue(false)},
		}))
		vals = must(c.StaticValues(ctx, d.target, ids[:3]))(t)
		if !slices.Equal(vals, []jdwp.Value{jdwp.IntValue(-43), jdwp.LongValue(1 << 50), jdwp.BoolValue(false)}) {
			t.Errorf("statics after SetStaticValues = %v", vals)
		}

		// Strings: the program prints staticStr, so set it to a new one.
		str := must(c.CreateString(ctx, "changed"))(t)
		check(t, c.DisableCollection(ctx, str))
		check(t, c.SetStaticValues(ctx, d.target, []jdwp.FieldValue{{Field: d.fields["staticStr"], Value: jdwp.ObjectValue(str)}}))
		check(t, c.EnableCollection(ctx, str))
		if got := d.str(t, d.staticValue(t, "staticStr")); got != "changed" {
			t.Errorf("staticStr after set = %q", got)
		}
	})

	t.Run("Arrays", func(t *testing.T) {
		ints := d.staticValue(t, "ints").Object()
		if n := must(c.ArrayLength(ctx, ints))(t); n != 5 {
			t.Errorf("ArrayLength(ints) = %d", n)
		}
		want := []jdwp.Value{jdwp.IntValue(1), jdwp.IntValue(2), jdwp.IntValue(3), jdwp.IntValue(4), jdwp.IntValue(5)}
		if got := must(c.ArrayValues(ctx, ints, 0, 5))(t); !slices.Equal(got, want) {
			t.Errorf("ArrayValues(ints) = %v", got)
		}
		if got := must(c.ArrayValues(ctx, ints, 3, 2))(t); !slices.Equal(got, want[3:]) {
			t.Errorf("ArrayValues(ints, 3, 2) = %v", got)
		}
		_, err := c.ArrayValues(ctx, ints, 4, 2)
		wantCode(t, "ArrayValues past the end", err, jdwp.ErrInvalidLength, jdwp.ErrInvalidIndex)
		check(t, c.SetArrayValues(ctx, ints, 1, []jdwp.Value{jdwp.IntValue(20), jdwp.IntValue(30)}))
		want[1], want[2] = jdwp.IntValue(20), jdwp.IntValue(30)
		if got := must(c.ArrayValues(ctx, ints, 0, 5))(t); !slices.Equal(got, want) {
			t.Errorf("ArrayValues(ints) after set = %v", got)
		}

		objs := d.staticValue(t, "objs").Object()
		vals := must(c.ArrayValues(ctx, objs, 0, must(c.ArrayLength(ctx, objs))(t)))(t)
		if len(vals) != 3 || vals[0].Tag != jdwp.TagString || d.str(t, vals[0]) != "a" ||
			vals[1].Tag != jdwp.TagObject || d.typeSignature(t, vals[1].Object()) != "Ljava/lang/Integer;" || !vals[2].IsNull() {
			t.Errorf("ArrayValues(objs) = %v, want \"a\", an Integer, null", vals)
		}
		check(t, c.SetArrayValues(ctx, objs, 2, []jdwp.Value{jdwp.ObjectValue(this.ID)}))
		if got := must(c.ArrayValues(ctx, objs, 2, 1))(t); got[0].Object() != this.ID {
			t.Errorf("objs[2] after set = %v, want this %d", got[0], this.ID)
		}

		intArr := d.class(t, "[I")
		arr := must(c.NewArray(ctx, intArr, 3))(t)
		if arr.Tag != jdwp.TagArray || arr.ID == 0 {
			t.Fatalf("NewArray([I, 3) = %+v", arr)
		}
		check(t, c.DisableCollection(ctx, arr.ID))
		defer c.EnableCollection(ctx, arr.ID)
		if got := must(c.ArrayValues(ctx, arr.ID, 0, 3))(t); !slices.Equal(got, []jdwp.Value{jdwp.IntValue(0), jdwp.IntValue(0), jdwp.IntValue(0)}) {
			t.Errorf("new int[3] = %v", got)
		}
		check(t, c.SetArrayValues(ctx, arr.ID, 0, []jdwp.Value{jdwp.IntValue(-1), jdwp.IntValue(1 << 30), jdwp.IntValue(7)}))
		if got := must(c.ArrayValues(ctx, arr.ID, 0, 3))(t); !slices.Equal(got, []jdwp.Value{jdwp.IntValue(-1), jdwp.IntValue(1 << 30), jdwp.IntValue(7)}) {
			t.Errorf("new int[3] after set = %v", got)
		}
		objArr := must(c.NewArray(ctx, d.class(t, "[Ljava/lang/Object;"), 2))(t)
		if got := must(c.ArrayValues(ctx, objArr.ID, 0, 2))(t); len(got) != 2 || !got[0].IsNull() || !got[1].IsNull() {
			t.Errorf("new Object[2] = %v", got)
		}
	})

	// Before Invoke creates more Boxes: keep1, keep2 and the local box.
	t.Run("Heap", func(t *testing.T) {
		if got := must(c.InstanceCounts(ctx, []jdwp.ReferenceTypeID{boxClass, d.target}))(t); !slices.Equal(got, []int64{3, 1}) {
			t.Errorf("InstanceCounts(Box, Target) = %v, want [3 1]", got)
		}
		all := must(c.Instances(ctx, boxClass, 0))(t)
		if len(all) != 3 || !slices.Contains(all, jdwp.TaggedObjectID{Tag: jdwp.TagObject, ID: box}) {
			t.Errorf("Instances(Box) = %v, want 3 with the local box %d", all, box)
		}
		if one := must(c.Instances(ctx, boxClass, 1))(t); len(one) != 1 {
			t.Errorf("Instances(Box, max 1) = %v", one)
		}
		keep1 := d.staticValue(t, "keep1").Object()
		holder := d.staticValue(t, "holder").Object()
		refs := must(c.ReferringObjects(ctx, keep1, 0))(t)
		if !slices.Contains(refs, jdwp.TaggedObjectID{Tag: jdwp.TagArray, ID: holder}) {
			t.Errorf("ReferringObjects(keep1) = %v, want the holder array %d", refs, holder)
		}
	})

	t.Run("Invoke", func(t *testing.T) {
		res := must(c.InvokeStatic(ctx, d.target, th, d.methods["add"].ID, []jdwp.Value{jdwp.IntValue(3), jdwp.IntValue(4)}, jdwp.InvokeSingleThreaded))(t)
		if res.Value != jdwp.IntValue(7) || res.Exception.ID != 0 {
			t.Errorf("add(3, 4) = %+v", res)
		}
		res = must(c.InvokeStatic(ctx, d.target, th, d.methods["boom"].ID, nil, jdwp.InvokeSingleThreaded))(t)
		if res.Exception.ID == 0 || d.typeSignature(t, res.Exception.ID) != "Ljava/lang/IllegalStateException;" {
			t.Errorf("boom() = %+v, want an IllegalStateException", res)
		}

		res = must(c.InvokeMethod(ctx, box, th, boxClass, d.method(t, boxClass, "area").ID, nil, jdwp.InvokeSingleThreaded))(t)
		if res.Value != jdwp.IntValue(40) {
			t.Errorf("box.area() = %+v, want 40 (w was set to 10)", res)
		}
		a, b := must(c.CreateString(ctx, "first"))(t), must(c.CreateString(ctx, "second"))(t)
		res = must(c.InvokeMethod(ctx, box, th, boxClass, d.method(t, boxClass, "pick").ID, []jdwp.Value{jdwp.ObjectValue(a), jdwp.ObjectValue(b)}, jdwp.InvokeSingleThreaded))(t)
		if res.Value.Tag != jdwp.TagString || res.Value.Object() != a {
			t.Errorf("box.pick(a, b) = %+v, want the string %d", res, a)
		}

		arg := must(c.CreateString(ctx, "zz"))(t)
		res = must(c.NewInstance(ctx, boxClass, th, d.method(t, boxClass, "<init>").ID, []jdwp.Value{jdwp.ObjectValue(arg)}, jdwp.InvokeSingleThreaded))(t)
		if res.Value.Tag != jdwp.TagObject || res.Exception.ID != 0 || d.typeSignature(t, res.Value.Object()) != "LTarget$Box;" {
			t.Fatalf("new Box(\"zz\") = %+v", res)
		}
		nb := res.Value.Object()
		if v := must(c.FieldValues(ctx, nb, []jdwp.FieldID{boxField["value"]}))(t); v[0].Object() != arg {
			t.Errorf("new box value = %v, want %d", v[0], arg)
		}
		res = must(c.InvokeMethod(ctx, nb, th, boxClass, d.method(t, boxClass, "area").ID, nil, jdwp.InvokeSingleThreaded))(t)
		if res.Value != jdwp.IntValue(12) {
			t.Errorf("newBox.area() = %+v", res)
		}

		shape := d.class(t, "LTarget$Shape;")
		res = must(c.InvokeInterfaceStatic(ctx, shape, th, d.method(t, shape, "unit").ID, nil, jdwp.InvokeSingleThreaded))(t)
		if res.Value != jdwp.IntValue(1) {
			t.Errorf("Shape.unit() = %+v", res)
		}

		// Invoking needs a thread stopped by an event.
		other := d.threadByName(t, "Reference Handler")
		_, err := c.InvokeStatic(ctx, d.target, other, d.methods["add"].ID, []jdwp.Value{jdwp.IntValue(1), jdwp.IntValue(2)}, 0)
		wantCode(t, "invoke in a running thread", err, jdwp.ErrThreadNotSuspended, jdwp.ErrInvalidThread)
	})

	t.Run("Collection", func(t *testing.T) {
		system := d.class(t, "Ljava/lang/System;")
		gc := func() {
			t.Helper()
			res := must(c.InvokeStatic(ctx, system, th, d.method(t, system, "gc").ID, nil, jdwp.InvokeSingleThreaded))(t)
			if res.Value.Tag != jdwp.TagVoid || res.Exception.ID != 0 {
				t.Errorf("System.gc() = %+v", res)
			}
		}
		str := must(c.CreateString(ctx, "garbage"))(t)
		check(t, c.DisableCollection(ctx, str))
		gc()
		if gone := must(c.IsCollected(ctx, str))(t); gone {
			t.Fatal("IsCollected = true with collection disabled")
		}
		check(t, c.EnableCollection(ctx, str))
		gc()
		if gone := must(c.IsCollected(ctx, str))(t); !gone {
			t.Error("IsCollected = false for an unreachable string after System.gc()")
		}
	})

	// An invoke without InvokeSingleThreaded resumes every thread while it
	// runs and suspends every thread when it completes, whatever their state
	// before (JDWP's ObjectReference.InvokeMethod): afterwards the whole VM is
	// suspended, as after VirtualMachine.Suspend, and only Resume undoes it.
	other := d.threadByName(t, "Reference Handler")
	if n := must(c.SuspendCount(ctx, other))(t); n != 0 {
		t.Errorf("SuspendCount(Reference Handler) before invoke = %d", n)
	}
	res := must(c.InvokeMethod(ctx, box, th, boxClass, d.method(t, boxClass, "area").ID, nil, 0))(t)
	if res.Value != jdwp.IntValue(40) {
		t.Errorf("box.area() = %+v, want 40 (w was set to 10)", res)
	}
	for _, thr := range []jdwp.ThreadID{th, other} {
		if n := must(c.SuspendCount(ctx, thr))(t); n != 1 {
			t.Errorf("SuspendCount(%s) after an all-threads invoke = %d, want 1", must(c.ThreadName(ctx, thr))(t), n)
		}
	}

	// The program prints what it sees: x (set 100) + 1, the changed array,
	// static string, instance field and box width.
	check(t, c.Resume(ctx))
	d.waitLine(t, "INSPECT y=101 sum=60 str=changed label=77 area=40")
}

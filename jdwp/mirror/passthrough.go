package mirror

import (
	"context"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

// Commands the mirror passes to the VM as they are, uncached: what the
// layers above (evaluation, the front end) ask of the VM without a model
// to keep, so that they reach the VM through the mirror and never hold the
// connection themselves.

// ClassLoader returns the class loader of a reference type (0: the
// bootstrap loader).
func (m *VM) ClassLoader(ctx context.Context, t jdwp.ReferenceTypeID) (jdwp.ClassLoaderID, error) {
	return m.conn.ClassLoader(ctx, t)
}

// ReflectedType returns the type a java.lang.Class object stands for.
func (m *VM) ReflectedType(ctx context.Context, class jdwp.ClassObjectID) (jdwp.ClassInfo, error) {
	return m.conn.ReflectedType(ctx, class)
}

// ClassesBySignature returns the loaded types of a JNI signature (one per
// defining loader).
func (m *VM) ClassesBySignature(ctx context.Context, signature string) ([]jdwp.ClassInfo, error) {
	return m.conn.ClassesBySignature(ctx, signature)
}

// DisableCollection keeps an object from the garbage collector until
// EnableCollection.
func (m *VM) DisableCollection(ctx context.Context, obj jdwp.ObjectID) error {
	return m.conn.DisableCollection(ctx, obj)
}

// EnableCollection lets the garbage collector have an object again.
func (m *VM) EnableCollection(ctx context.Context, obj jdwp.ObjectID) error {
	return m.conn.EnableCollection(ctx, obj)
}

// ClassPaths returns the VM's base directory and class path.
func (m *VM) ClassPaths(ctx context.Context) (jdwp.ClassPathInfo, error) {
	return m.conn.ClassPaths(ctx)
}

// Version returns the VM's version (and, in its description, what it is:
// an Android VM, a simulated one).
// It is asked once (a VM's version does not change); an error is not kept.
func (m *VM) Version(ctx context.Context) (jdwp.VersionInfo, error) {
	m.versionMu.Lock()
	defer m.versionMu.Unlock()
	if m.version != nil {
		return *m.version, nil
	}
	v, err := m.conn.Version(ctx)
	if err == nil {
		m.version = &v
	}
	return v, err
}

// PopFrames pops frame f of its suspended thread (made live first) and
// every frame above it: the frames read before are not the thread's any
// more (ThreadRan, FramesChanged).
func (m *VM) PopFrames(ctx context.Context, f Frame) error {
	f, err := m.Live(ctx, f)
	if err != nil {
		return err
	}
	defer m.FramesChanged(f.Thread)
	defer m.ThreadRan(f.Thread)
	return m.conn.PopFrames(ctx, f.Thread, f.ID)
}

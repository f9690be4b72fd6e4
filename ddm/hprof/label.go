package hprof

// Label names object i for listings: its class name, except for a class
// object, which is named after the class it is, as Eclipse MAT does
// ("class com.acme.Leak" rather than a bare java.lang.Class). A
// java.lang.Class instance the dump describes no class for (HotSpot dumps
// the primitive types' mirrors, int.class and the like, as plain instances)
// keeps the name java.lang.Class: the dump does not say which it is. The
// first call
// on a class object maps class objects to their classes (a few bytes per
// class).
func (h *Heap) Label(i int32) string {
	if !h.IsClassObject(i) {
		return h.ClassName(i)
	}
	h.mirrorOnce.Do(func() {
		h.mirrorOf = make(map[int32]int32, len(h.Classes))
		for c := range h.Classes {
			if o := h.Classes[c].Object; o >= 0 {
				if _, dup := h.mirrorOf[o]; !dup {
					h.mirrorOf[o] = int32(c)
				}
			}
		}
	})
	if c, ok := h.mirrorOf[i]; ok {
		return "class " + h.Classes[c].Name
	}
	return h.ClassName(i)
}

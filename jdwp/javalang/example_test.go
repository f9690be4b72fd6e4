package javalang_test

import (
	"fmt"

	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
)

// The three spellings of a JVM type, converted into one another.
func Example() {
	sig := "[Ljava/util/Map$Entry;"
	fmt.Println(javalang.TypeName(sig))
	fmt.Println(javalang.SimpleTypeName(sig))
	fmt.Println(javalang.Signature("java.util.Map$Entry[]"))
	fmt.Println(javalang.ClassName("java/util/HashMap$Node"))
	fmt.Println(javalang.InternalName("Ljava/lang/String;"))
	params, ret := javalang.ParamSigs("(I[JLjava/lang/String;)V")
	fmt.Println(params, ret)
	// Output:
	// java.util.Map$Entry[]
	// Map$Entry[]
	// [Ljava/util/Map$Entry;
	// java.util.HashMap$Node
	// java/lang/String
	// [I [J Ljava/lang/String;] V
}

package jvmrun

import (
	"os"

	"github.com/ddmbridge/ddmbridge/jdwp/localjvm"
)

// ModernJDKHome is where the tests that need a JDK 21 or later find one:
// $DDMBRIDGE_JDK21 when set, else Temurin 25's usual folder, else the
// newest installed JDK of 21 or later with a compiler; "" when there is
// none.
func ModernJDKHome() string {
	if h := os.Getenv("DDMBRIDGE_JDK21"); h != "" {
		return h
	}
	if j, ok := localjvm.ReadJDK("/usr/lib/jvm/temurin-25-jdk-amd64"); ok && j.Compiler {
		return j.Home
	}
	for _, j := range localjvm.InstalledJDKs() {
		if j.Version >= 21 && j.Compiler {
			return j.Home
		}
	}
	return ""
}

// Package srclookup finds the Java source of a class when a debug session
// names no source paths: .java files of the workspace folders indexed by
// their package declaration (not by folder layout), -sources.jar archives
// beside class path jars, src.zip archives in class path directories, and
// the JDK's lib/src.zip.
//
// It owns reading those files and archives, bounded in time and memory
// (how many files are indexed, how big an entry it reads). It must not
// touch JDWP or DAP: callers give it a class's package path and SourceFile
// attribute ("java/lang", "String.java") and show what it finds.
package srclookup

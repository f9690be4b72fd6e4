// Package srclookup finds the source of a class when a debug session names
// no source paths: the source files of the workspace folders (those of the
// languages it is given, by extension) indexed by the package each declares
// as its language reads it (lang.Language.Package; not by folder layout),
// -sources.jar archives
// beside class path jars, src.zip archives in class path directories, and
// the JDK's lib/src.zip.
//
// It owns reading those files and archives, bounded in time and memory
// (how many files are indexed, how big an entry it reads). It must not
// touch JDWP, DAP or any one language's rules (the seam, jdwp/lang, says
// them): callers give it a class's package path and SourceFile
// attribute ("java/lang", "String.java") and show what it finds.
package srclookup

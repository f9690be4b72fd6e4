// Package smap decodes JSR-45 source maps (SMAP): the SourceDebugExtension
// attribute by which a class says that its JVM line numbers stand for lines
// of other sources, in one or more strata. Kotlin writes one for every class
// with inlined code: the Kotlin stratum maps the lines past a file's end back
// to the inline function's own file and line, the KotlinDebug stratum maps
// the same lines to the call site.
//
// It owns the text format (header, *S stratum sections, *F file sections,
// *L line sections with repeat counts and output increments, *V vendor
// sections skipped, *E end) and the two questions asked of a stratum: which
// source line a JVM line is (Stratum.Map) and which JVM lines a source line
// became (Stratum.OutputLines). Line sections are kept as ranges, never
// expanded, so a hostile repeat count costs nothing.
//
// It knows no JDWP and no language: reading the attribute from a VM and
// caching it per class belong to jdwp/mirror, what a stratum means to a
// language to the language floors (jdwp/lang/...).
package smap

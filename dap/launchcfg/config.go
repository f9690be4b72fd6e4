package launchcfg

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// LaunchConfig is the arguments of a launch request: start a local Java
// program under the debugger. In VS Code these are the fields of a launch.json
// configuration with "request": "launch".
type LaunchConfig struct {
	// MainClass is the class whose main method runs, e.g. "com.example.App"
	// (required).
	MainClass string `json:"mainClass"`
	// ClassPaths are the class path entries (directories and jars), joined
	// into -cp. Relative entries are relative to Cwd.
	ClassPaths []string `json:"classPaths,omitempty"`
	// VMArgs are extra JVM options, e.g. ["-Xmx512m", "-Dmode=test"]; a
	// single string is split at spaces.
	VMArgs StringList `json:"vmArgs,omitempty"`
	// Args are the program's arguments; a single string is split at spaces.
	Args StringList `json:"args,omitempty"`
	// Cwd is the program's working directory; the default is the adapter's.
	Cwd string `json:"cwd,omitempty"`
	// Env adds or overrides environment variables of the program.
	Env map[string]string `json:"env,omitempty"`
	// StopOnEntry stops at the first line of main.
	StopOnEntry bool `json:"stopOnEntry,omitempty"`
	// Console is where the program's input and output go:
	// "internalConsole" (the default: output arrives as output events),
	// "integratedTerminal" or "externalTerminal" (through the client's
	// runInTerminal request; output events are used instead when the client
	// cannot run a terminal).
	Console string `json:"console,omitempty"`
	// JavaExec is the java executable; the default is $JAVA_HOME/bin/java,
	// then java on $PATH.
	JavaExec string `json:"javaExec,omitempty"`
	// JavaHome is the JDK (or JRE) that runs the program, e.g.
	// "/usr/lib/jvm/temurin-25-jdk-amd64": its bin/java, unless JavaExec
	// names another executable. Stepping into the JDK shows that JDK's own
	// sources (its lib/src.zip) whichever JDK this is.
	JavaHome string `json:"javaHome,omitempty"`
	// SourcePaths are the source roots stack frames are mapped to: a frame in
	// class com.example.App from App.java shows
	// <root>/com/example/App.java from the first root that has it. The
	// default is Cwd.
	SourcePaths []string `json:"sourcePaths,omitempty"`
	// Timeout is how long to wait for the JVM to connect, in milliseconds
	// (default 30000; an Android launch waits up to 120000 by default).
	Timeout int `json:"timeout,omitempty"`
	// KeepDebugPort, through the ddmbridge monitor (serve), keeps the
	// launched JVM's per-VM debugger port (8600+) open after the session
	// ends (a disconnect that leaves the JVM running), for jdb or an IDE
	// to attach later. By default the monitor opens that port only while
	// the session lives. Either way only this user may connect to it.
	KeepDebugPort bool `json:"keepDebugPort,omitempty"`

	// PackageName launches an Android app instead of a local program (then
	// MainClass is not needed): the ddmbridge monitor installs ApkFile if
	// set, starts the app waiting for a debugger (am start -D), waits for
	// its VM and attaches to it; the app runs when configurationDone
	// arrives. Needs the session to run inside `ddmbridge serve`.
	PackageName string `json:"packageName,omitempty"`
	// TargetDevice is the adb serial of the device or emulator
	// ("emulator-5554"); the default is the only device connected.
	TargetDevice string `json:"targetDevice,omitempty"`
	// LaunchActivity is the activity to start, e.g. ".MainActivity" or
	// "com.example/.MainActivity"; the default is the package's launcher
	// activity.
	LaunchActivity string `json:"launchActivity,omitempty"`
	// AmStartArgs are extra arguments of `am start`, e.g. ["--ez", "demo", "true"].
	AmStartArgs []string `json:"amStartArgs,omitempty"`
	// ApkFile is an APK to install (adb install -r) before starting the app.
	ApkFile string `json:"apkFile,omitempty"`

	CommonConfig
}

// CommonConfig are the options launch and attach share.
type CommonConfig struct {
	// EvaluateHoverMethods lets hover evaluation run methods in the VM
	// (getters, toString in concatenations). The default, false, keeps
	// hovers free of side effects: an expression that needs to call a
	// method fails to evaluate and objects concatenated to strings show as
	// Type@id.
	EvaluateHoverMethods bool `json:"evaluateHoverMethods,omitempty"`
	// StepFilters are what step-into passes over, in vscode-java-debug's
	// shape. The default skips the JDK's classes.
	StepFilters *StepFilters `json:"stepFilters,omitempty"`
	// HideSystemThreads leaves the VM's own threads out of the threads
	// list: Reference Handler, Finalizer, Signal Dispatcher, Common-Cleaner,
	// Notification Thread, Attach Listener and the like (and Android's
	// daemons), and every thread of the "system" thread group.
	HideSystemThreads bool `json:"hideSystemThreads,omitempty"`
	// ShowToString shows toString() in the value column for objects whose
	// class overrides it (default true). Methods run in the stopped thread
	// alone, at most InvokeTimeout each, never in hovers unless
	// EvaluateHoverMethods is set, and never on an object whose monitor
	// another thread holds.
	ShowToString *bool `json:"showToString,omitempty"`
	// InvokeTimeout bounds each method run to present a value (toString,
	// size, toArray), in milliseconds (default 3000). One that does not
	// return in time stops further runs until the VM resumes.
	InvokeTimeout int `json:"invokeTimeout,omitempty"`
	// ShowFrameParameterTypes names stack frames with their parameter
	// types, OrderApp.describe(Order) (default true); false gives
	// OrderApp.describe. A stackTrace request's format overrides it.
	ShowFrameParameterTypes *bool `json:"showFrameParameterTypes,omitempty"`
	// WorkspaceFolders are searched for sources when SourcePaths is absent:
	// their .java files are found by package declaration, whatever the
	// folder layout (default: the launch's cwd, or the adapter's working
	// directory). Then -sources.jar archives beside class path jars, src.zip
	// in class path directories, and the JDK's lib/src.zip are searched; a
	// class found nowhere shows an outline of its bytecode.
	WorkspaceFolders []string `json:"workspaceFolders,omitempty"`
	// SuspendAllThreads says whether a stop (breakpoint, step, exception)
	// suspends every thread of the VM (true, the default) or only the
	// thread that stopped, the others running on; pause and continue then
	// act on the thread they name, and the threads list says which are
	// suspended.
	SuspendAllThreads *bool `json:"suspendAllThreads,omitempty"`
	// Logcat shows an Android app's log in the Debug Console (default
	// true; a VM on a device only): the app's lines (by its pid, following
	// it through restarts) as output, V, D and I as stdout, W, E and F as
	// stderr. LogcatLevel is the lowest level shown ("V", the default, to
	// "F"); LogcatTags, if set, the only tags shown. Lines that come faster
	// than the editor takes them are dropped, and the console says how many.
	Logcat      *bool    `json:"logcat,omitempty"`
	LogcatLevel string   `json:"logcatLevel,omitempty"`
	LogcatTags  []string `json:"logcatTags,omitempty"`
}

// LogcatFilter is the log filter the configuration asks for, and whether
// the log is shown at all.
func (c CommonConfig) LogcatFilter() (level string, tags []string, on bool) {
	return strings.ToUpper(c.LogcatLevel), c.LogcatTags, c.Logcat == nil || *c.Logcat
}

// validateLogcat checks the log filter.
func (c CommonConfig) validateLogcat(request string) error {
	if l := strings.ToUpper(c.LogcatLevel); l != "" && (len(l) != 1 || !strings.Contains("VDIWEF", l)) {
		return fmt.Errorf(`%s: field "logcatLevel": %q is not one of V, D, I, W, E, F`, request, c.LogcatLevel)
	}
	return nil
}

// workspace is where zero-config source lookup looks first.
func (c CommonConfig) Workspace() []string {
	if len(c.WorkspaceFolders) > 0 {
		return c.WorkspaceFolders
	}
	return []string{"."}
}

// StepFilters say which code step-into passes over.
type StepFilters struct {
	// SkipClasses are class patterns: a name ("com.example.Util"), a prefix
	// ("com.example.*"), a suffix ("*.Generated"), or "$JDK" for java.*,
	// javax.*, jdk.*, sun.*, com.sun.* and Kotlin's intrinsics
	// (kotlin.jvm.internal.*) (the default when StepFilters is absent).
	SkipClasses []string `json:"skipClasses,omitempty"`
	// SkipSynthetics passes over synthetic methods (lambda bodies, bridges,
	// accessors).
	SkipSynthetics bool `json:"skipSynthetics,omitempty"`
	// SkipStaticInitializers passes over static initializers (<clinit>).
	SkipStaticInitializers bool `json:"skipStaticInitializers,omitempty"`
	// SkipConstructors passes over constructors (<init>).
	SkipConstructors bool `json:"skipConstructors,omitempty"`
}

// AttachConfig is the arguments of an attach request: debug a VM that is
// already running. Name it with exactly one of HostName+Port, VM or ProcessID.
type AttachConfig struct {
	// HostName and Port are the address of a JDWP agent listening with
	// server=y (java -agentlib:jdwp=transport=dt_socket,server=y,address=PORT).
	// HostName defaults to 127.0.0.1.
	HostName string `json:"hostName,omitempty"`
	Port     int    `json:"port,omitempty"`
	// VM is the id of a VM the ddmbridge monitor watches, or "current" for its
	// selected VM. The session then attaches through the monitor, so DDM keeps
	// flowing and the VM stays monitored afterwards.
	VM string `json:"vm,omitempty"`
	// ProcessID is the pid of a local JVM started with a JDWP agent in server
	// mode; its address is read from the process's command line. A number or
	// a numeric string.
	ProcessID FlexInt `json:"processId,omitempty"`
	// Timeout is how long to keep trying to connect, in milliseconds (default
	// 10000).
	Timeout int `json:"timeout,omitempty"`
	// WaitForVM retries a refused connection until Timeout, so an attach can
	// be started just before the VM. Without it a closed port fails the
	// attach at once, saying how to start the VM.
	WaitForVM bool `json:"waitForVM,omitempty"`
	// SourcePaths are the source roots stack frames are mapped to (see
	// LaunchConfig.SourcePaths). The default is the adapter's directory.
	SourcePaths []string `json:"sourcePaths,omitempty"`

	CommonConfig
}

// StringList is a list of strings that may also be given as one string of
// space-separated words (as launch.json "args": "a b c" often is). Double
// quotes group words.
type StringList []string

func (l *StringList) UnmarshalJSON(b []byte) error {
	if bytes.HasPrefix(bytes.TrimSpace(b), []byte(`"`)) {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*l = splitWords(s)
		return nil
	}
	var out []string
	if err := json.Unmarshal(b, &out); err != nil {
		return errors.New("expected a string or an array of strings")
	}
	*l = out
	return nil
}

// splitWords splits at unquoted spaces; double quotes group and are removed.
func splitWords(s string) []string {
	var out []string
	var cur strings.Builder
	in, have := false, false
	for _, r := range s {
		switch {
		case r == '"':
			in, have = !in, true
		case (r == ' ' || r == '\t' || r == '\n') && !in:
			if have {
				out = append(out, cur.String())
				cur.Reset()
				have = false
			}
		default:
			cur.WriteRune(r)
			have = true
		}
	}
	if have {
		out = append(out, cur.String())
	}
	return out
}

// FlexInt is an integer that may also be given as a numeric string (VS Code's
// "${command:PickProcess}" substitutes a string).
type FlexInt int

func (n *FlexInt) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch v := v.(type) {
	case float64:
		*n = FlexInt(v)
	case string:
		i, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("expected a number, got %q", v)
		}
		*n = FlexInt(i)
	case nil:
		*n = 0
	default:
		return errors.New("expected a number")
	}
	return nil
}

// Decode decodes request arguments into cfg, naming the field that is wrong.
func Decode(request string, raw json.RawMessage, cfg any) error {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return fmt.Errorf("%s: the request has no arguments", request)
	}
	err := json.Unmarshal(raw, cfg)
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &te):
		return fmt.Errorf("%s: field %q: expected %s, got a JSON %s", request, te.Field, jsonTypeName(te.Type.String()), te.Value)
	case errors.As(err, &se):
		return fmt.Errorf("%s: the arguments are not valid JSON: %v", request, err)
	}
	// Errors from our own UnmarshalJSON methods name no field; find it.
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) == nil {
		for _, name := range []string{"vmArgs", "args", "processId"} {
			if f, ok := fields[name]; ok {
				var probe any
				switch name {
				case "processId":
					probe = new(FlexInt)
				default:
					probe = new(StringList)
				}
				if e := json.Unmarshal(f, probe); e != nil {
					return fmt.Errorf("%s: field %q: %v", request, name, e)
				}
			}
		}
	}
	return fmt.Errorf("%s: %v", request, err)
}

func jsonTypeName(goType string) string {
	switch {
	case strings.HasPrefix(goType, "[]"), goType == "launchcfg.StringList":
		return "an array"
	case strings.HasPrefix(goType, "map["):
		return "an object"
	case strings.HasPrefix(goType, "int"), goType == "launchcfg.FlexInt":
		return "a number"
	case goType == "bool":
		return "true or false"
	case goType == "string":
		return "a string"
	}
	return goType
}

// Validate checks what can be known wrong before anything starts.
func (c *LaunchConfig) Validate() error {
	if err := c.validateLogcat("launch"); err != nil {
		return err
	}
	if c.PackageName != "" {
		if strings.ContainsAny(c.PackageName, "/ ") {
			return fmt.Errorf(`launch: field "packageName": %q is not an Android package name, e.g. "com.example.app"`, c.PackageName)
		}
		if c.Timeout < 0 {
			return fmt.Errorf(`launch: field "timeout": %d is negative`, c.Timeout)
		}
		return nil
	}
	if strings.TrimSpace(c.MainClass) == "" {
		return errors.New(`launch: field "mainClass" is required: the class whose main method to run, e.g. "com.example.App"`)
	}
	if strings.ContainsAny(c.MainClass, "/\\ ") || strings.HasSuffix(c.MainClass, ".java") || strings.HasSuffix(c.MainClass, ".class") {
		return fmt.Errorf(`launch: field "mainClass": %q is not a class name; give the fully qualified name, e.g. "com.example.App"`, c.MainClass)
	}
	switch c.Console {
	case "", "internalConsole", "integratedTerminal", "externalTerminal":
	default:
		return fmt.Errorf(`launch: field "console": %q is not one of internalConsole, integratedTerminal, externalTerminal`, c.Console)
	}
	if c.Timeout < 0 {
		return fmt.Errorf(`launch: field "timeout": %d is negative`, c.Timeout)
	}
	return nil
}

// StartTimeout is how long a launch may take to start.
func (c *LaunchConfig) StartTimeout() time.Duration {
	if c.PackageName != "" {
		return millis(c.Timeout, 120*time.Second)
	}
	return millis(c.Timeout, 30*time.Second)
}

// millis is ms milliseconds, or def when ms is not positive.
func millis(ms int, def time.Duration) time.Duration {
	if ms > 0 {
		return time.Duration(ms) * time.Millisecond
	}
	return def
}

// Validate checks that exactly one way to name the VM is given, and right.
func (c *AttachConfig) Validate() error {
	if err := c.validateLogcat("attach"); err != nil {
		return err
	}
	n := 0
	if c.Port != 0 || c.HostName != "" {
		n++
	}
	if c.VM != "" {
		n++
	}
	if c.ProcessID != 0 {
		n++
	}
	switch {
	case n == 0:
		return errors.New(`attach: name the VM with "hostName" and "port", "vm" (a monitored VM id or "current"), or "processId"`)
	case n > 1:
		return errors.New(`attach: give only one of "hostName"/"port", "vm" and "processId"`)
	case c.HostName != "" && c.Port == 0:
		return fmt.Errorf(`attach: field "port" is required with "hostName" %q`, c.HostName)
	case c.Port < 0 || c.Port > 65535:
		return fmt.Errorf(`attach: field "port": %d is not a TCP port`, c.Port)
	case c.ProcessID < 0:
		return fmt.Errorf(`attach: field "processId": %d is not a process id`, c.ProcessID)
	case c.Timeout < 0:
		return fmt.Errorf(`attach: field "timeout": %d is negative`, c.Timeout)
	}
	return nil
}

// StartTimeout is how long an attach may keep trying to connect.
func (c *AttachConfig) StartTimeout() time.Duration { return millis(c.Timeout, 10*time.Second) }

// Parse decodes and validates the arguments of a launch or attach request.
func Parse(request string, raw json.RawMessage, cfg interface{ Validate() error }) error {
	if err := Decode(request, raw, cfg); err != nil {
		return err
	}
	return cfg.Validate()
}

// Check validates the arguments of a launch or attach request as the
// adapter will, without starting anything: an editor asks before it starts
// a session (the monitor's dap/checkConfig), so launch configurations are
// validated in one place. The error says what to change, in the words the
// launch or attach response would use.
func Check(request string, args json.RawMessage) error {
	switch request {
	case "launch":
		return Parse(request, args, &LaunchConfig{})
	case "attach":
		return Parse(request, args, &AttachConfig{})
	}
	return fmt.Errorf(`field "request": must be "launch" or "attach", not %q`, request)
}

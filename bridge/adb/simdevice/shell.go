package simdevice

import (
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/ddmbridge/ddmbridge/ddm/simvm"
)

// The simulated shell answers a handful of commands from tables; it never
// executes anything. Commands lines are split like sh would split simple
// words (quotes and backslashes); pipes, redirections, substitutions and
// command lists are refused.

type shellResult struct {
	stdout, stderr string
	code           int
}

func ok(stdout string) shellResult { return shellResult{stdout: stdout} }

func failed(code int, format string, args ...any) shellResult {
	return shellResult{stderr: fmt.Sprintf(format, args...) + "\n", code: code}
}

// shellCommands is the table of simulated commands, by argv[0].
var shellCommands = map[string]func(d *Device, args []string) shellResult{
	"getprop": (*Device).getprop,
	"cat":     (*Device).cat,
	"ps":      (*Device).ps,
	"pidof":   (*Device).pidof,
	"am":      (*Device).am,
	"pm":      (*Device).pm,
	"rm":      (*Device).rm,
	"echo":    func(_ *Device, args []string) shellResult { return ok(strings.Join(args, " ") + "\n") },
	"id": func(*Device, []string) shellResult {
		return ok("uid=2000(shell) gid=2000(shell) groups=2000(shell) context=u:r:shell:s0\n")
	},
	"true":  func(*Device, []string) shellResult { return ok("") },
	"false": func(*Device, []string) shellResult { return shellResult{code: 1} },
}

// ErrUnsupportedSyntax is returned by SplitCommand for what a simple-command
// table cannot answer: pipes, redirections, lists, substitutions.
var ErrUnsupportedSyntax = errors.New("only simple commands are simulated (no pipes, redirections, lists or substitutions)")

// SplitCommand splits a shell command line into words, honouring single and
// double quotes and backslashes, and refuses shell syntax beyond that.
func SplitCommand(line string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated single quote")
			}
			w.WriteString(line[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				switch line[i] {
				case '$', '`':
					return nil, ErrUnsupportedSyntax
				case '\\':
					if i+1 < len(line) && strings.IndexByte("\"\\$`", line[i+1]) >= 0 {
						i++
					}
				}
				w.WriteByte(line[i])
			}
			if i >= len(line) {
				return nil, errors.New("unterminated double quote")
			}
			inWord = true
		case c == '\\':
			if i+1 < len(line) {
				i++
				w.WriteByte(line[i])
			}
			inWord = true
		case strings.IndexByte(";&|<>`$(){}", c) >= 0:
			return nil, ErrUnsupportedSyntax
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

func (d *Device) runShell(line string) shellResult {
	words, err := SplitCommand(line)
	if err != nil {
		return failed(2, "/system/bin/sh: simulated shell: %v", err)
	}
	if len(words) == 0 {
		return failed(1, "simulated device: interactive shells are not supported; pass a command")
	}
	cmd := shellCommands[words[0]]
	if cmd == nil {
		d.log.Info().Str("cmd", line).Msg("shell command not simulated")
		return failed(127, "/system/bin/sh: %s: inaccessible or not found", words[0])
	}
	return cmd(d, words[1:])
}

// props are the device's system properties: defaults, the banner's, Options.Props.
func (d *Device) props() map[string]string {
	sdk, release := "34", "14" // the current profile: Android 14
	if d.opt.VM.Profile != simvm.ProfileCurrent {
		sdk, release = "30", "11" // the ART profile imitates Android 8–11 (and the draft has no later one)
	}
	p := map[string]string{
		"ro.build.version.sdk":     sdk,
		"ro.build.version.release": release,
		"ro.build.type":            "userdebug",
		"ro.debuggable":            "1",
		"ro.product.cpu.abi":       "x86_64",
		"ro.product.manufacturer":  "ddmbridge",
		"ro.product.name":          d.opt.Product,
		"ro.product.model":         d.opt.Model,
		"ro.product.device":        d.opt.Name,
		"ro.kernel.qemu":           "0",
	}
	maps.Copy(p, d.opt.Props)
	return p
}

func (d *Device) getprop(args []string) shellResult {
	p := d.props()
	if len(args) > 0 {
		return ok(p[args[0]] + "\n")
	}
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(p)) {
		fmt.Fprintf(&b, "[%s]: [%s]\n", k, p[k])
	}
	return ok(b.String())
}

func (d *Device) cat(args []string) shellResult {
	var out strings.Builder
	for _, a := range args {
		if rest, isProc := strings.CutPrefix(a, "/proc/"); isProc {
			pidStr, file, _ := strings.Cut(rest, "/")
			pid, _ := strconv.Atoi(pidStr)
			d.mu.Lock()
			p := d.procs[pid]
			d.mu.Unlock()
			if p != nil && file == "cmdline" {
				out.WriteString(p.Name + "\x00")
				continue
			}
			if p != nil && file == "wchan" { // what a frozen task sleeps in (cgroup v2 freezer)
				out.WriteString(map[bool]string{true: "do_freezer_trap", false: "do_epoll_wait"}[p.Frozen])
				continue
			}
		} else {
			d.mu.Lock()
			data, ok := d.files[a]
			d.mu.Unlock()
			if ok {
				out.Write(data)
				continue
			}
		}
		r := failed(1, "cat: %s: No such file or directory", a)
		r.stdout = out.String()
		return r
	}
	return ok(out.String())
}

func (d *Device) ps(args []string) shellResult {
	var b strings.Builder
	fmt.Fprintf(&b, "%-10s %5s %5s %8s %6s %-22s %s %s %s\n", "USER", "PID", "PPID", "VSZ", "RSS", "WCHAN", "ADDR", "S", "NAME")
	fmt.Fprintf(&b, "%-10s %5d %5d %8d %6d %-22s %s %s %s\n", "root", 1, 0, 10920, 2048, "do_epoll_wait", "0", "S", "init")
	for _, p := range d.Processes() {
		fmt.Fprintf(&b, "%-10s %5d %5d %8d %6d %-22s %s %s %s\n", "u0_a100", p.PID, 1, 1048576, 65536, "do_epoll_wait", "0", "S", p.Name)
	}
	return ok(b.String())
}

func (d *Device) pidof(args []string) shellResult {
	var pids []string
	for _, p := range d.Processes() {
		if slices.Contains(args, p.Name) {
			pids = append(pids, strconv.Itoa(p.PID))
		}
	}
	if len(pids) == 0 {
		return shellResult{code: 1}
	}
	return ok(strings.Join(pids, " ") + "\n")
}

// amArgFlags are `am start` options followed by one argument; amExtraFlags
// by two (key, value).
var (
	amArgFlags   = []string{"-a", "-d", "-t", "-c", "-n", "-f", "-p", "--user", "-P", "--start-profiler", "--sampling", "--attach-agent", "--display", "--windowingMode", "--activityType", "--esn", "--receiver-permission"}
	amExtraFlags = []string{"-e", "--es", "--ei", "--ez", "--el", "--ef", "--eu", "--ecn", "--eia", "--ela", "--efa", "--esa"}
)

func (d *Device) am(args []string) shellResult {
	if len(args) == 0 {
		return failed(1, "usage: am [start|force-stop|dumpheap] ...")
	}
	switch args[0] {
	case "start":
		return d.amStart(args[1:])
	case "force-stop", "kill":
		if len(args) < 2 {
			return failed(1, "Error: no package specified")
		}
		for _, p := range d.Processes() {
			if p.Name == args[1] {
				d.RemoveProcess(p.PID)
			}
		}
		return ok("")
	case "dumpheap":
		return d.amDumpHeap(args[1:])
	}
	return failed(1, "Error: am %s is not simulated", args[0])
}

// amDumpHeap is `am dumpheap [--user U] [-g] [-b] PROCESS FILE`: the
// process's simulated heap, as the HPROF file HPDS would stream, is written
// to FILE (for `adb pull`). -n (a native heap dump) is not simulated. Like
// current Android, it returns once the file is complete.
func (d *Device) amDumpHeap(args []string) shellResult {
	var rest []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--user" && i+1 < len(args):
			i++
		case a == "-g" || a == "-b":
		case a == "-n":
			return failed(1, "Error: native heap dumps (-n) are not simulated")
		case strings.HasPrefix(a, "-"):
			return failed(1, "Error: Unknown option: %s", a)
		default:
			rest = append(rest, a)
		}
	}
	if len(rest) != 2 {
		return failed(1, "Error: am dumpheap needs PROCESS and FILE")
	}
	var vm *simvm.VM
	for _, p := range d.Processes() {
		if strconv.Itoa(p.PID) == rest[0] || p.Name == rest[0] {
			vm = d.VM(p.PID)
			break
		}
	}
	if vm == nil {
		return failed(1, "Error: Unknown process: %s", rest[0])
	}
	file := rest[1]
	if !strings.HasPrefix(file, "/") || !simDirs[path.Dir(file)] {
		return failed(1, "Error: Unable to open file: %s", file)
	}
	data := vm.HprofDump()
	if len(data) > maxFile {
		return failed(1, "Error: the dump is too large for the simulated device")
	}
	d.mu.Lock()
	d.files[file] = data
	d.mu.Unlock()
	return ok("File: " + file + "\nWaiting for dump to finish...\n")
}

func (d *Device) amStart(args []string) shellResult {
	var comp string
	debug := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-D":
			debug = true
		case a == "-n" && i+1 < len(args):
			comp = args[i+1]
			i++
		case slices.Contains(amArgFlags, a):
			i++
		case slices.Contains(amExtraFlags, a):
			i += 2
		case !strings.HasPrefix(a, "-") && strings.Contains(a, "/"):
			comp = a
		}
	}
	if comp == "" {
		return failed(1, "Error: no component given (use -n PACKAGE/ACTIVITY)")
	}
	pkg, act, _ := strings.Cut(comp, "/")
	if strings.HasPrefix(act, ".") {
		act = pkg + act
	}
	out := fmt.Sprintf("Starting: Intent { cmp=%s }\n", comp)
	if _, err := d.startApp(pkg, debug); err != nil {
		r := failed(1, "Error type 3\nError: Activity class {%s/%s} does not exist.", pkg, act)
		r.stdout = out
		return r
	}
	return ok(out)
}

func (d *Device) pm(args []string) shellResult {
	if len(args) == 0 {
		return failed(1, "usage: pm [install|uninstall|list packages|path] ...")
	}
	switch args[0] {
	case "install":
		var file string
		for _, a := range args[1:] {
			if !strings.HasPrefix(a, "-") {
				file = a
			}
		}
		d.mu.Lock()
		_, exists := d.files[file]
		d.mu.Unlock()
		if !exists {
			return failed(1, "Error: Unable to open file: %s\nConsider using a file under /data/local/tmp/", file)
		}
		pkg, err := packageOf(file)
		if err != nil {
			return ok(fmt.Sprintf("Failure [INSTALL_PARSE_FAILED_NOT_APK: %v]\n", err))
		}
		d.mu.Lock()
		d.packages[pkg] = true
		d.mu.Unlock()
		d.log.Info().Str("package", pkg).Msg("installed")
		return ok("Success\n")
	case "uninstall":
		if len(args) < 2 {
			return failed(1, "Error: package name not specified")
		}
		d.mu.Lock()
		known := d.packages[args[1]]
		delete(d.packages, args[1])
		d.mu.Unlock()
		if !known {
			return ok("Failure [DELETE_FAILED_INTERNAL_ERROR]\n")
		}
		return ok("Success\n")
	case "list":
		var b strings.Builder
		for _, p := range d.Packages() {
			b.WriteString("package:" + p + "\n")
		}
		return ok(b.String())
	case "path":
		if len(args) < 2 || !slices.Contains(d.Packages(), args[1]) {
			return shellResult{code: 1}
		}
		return ok("package:/data/app/" + args[1] + "-1/base.apk\n")
	}
	return failed(1, "Error: pm %s is not simulated", args[0])
}

// packageOf names the package an APK installs. The simulation does not read
// the manifest: the file must be named PACKAGE.apk.
func packageOf(file string) (string, error) {
	pkg, isAPK := strings.CutSuffix(path.Base(file), ".apk")
	if !isAPK || !strings.Contains(pkg, ".") || strings.ContainsAny(pkg, " /") {
		return "", fmt.Errorf("the simulated device installs files named PACKAGE.apk, not %s", path.Base(file))
	}
	return pkg, nil
}

func (d *Device) rm(args []string) shellResult {
	d.mu.Lock()
	defer d.mu.Unlock()
	force := false
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			force = force || strings.Contains(a, "f")
			continue
		}
		if _, exists := d.files[a]; !exists && !force {
			return failed(1, "rm: %s: No such file or directory", a)
		}
		delete(d.files, a)
	}
	return ok("")
}

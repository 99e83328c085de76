// Command bonebake bakes skeletal animation into bone palette files and inspects,
// validates and samples them. Run `bonebake --help` for the commands.
package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/bonebake/bonebake/internal/atomicfile"
	"github.com/bonebake/bonebake/internal/words"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Exit codes: 0 success, 1 failure, 2 usage error.
const (
	exitFailure = 1
	exitUsage   = 2
)

// usageError marks an error in how the command was called.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// exitError carries an exit status whose reason was already printed.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// subcommandMakers are the commands and how each is made, in the order help
// lists them.
var subcommandMakers = []struct {
	name string
	make func() *cobra.Command
}{
	{"bake", newBakeCmd},
	{"bat", newBatCmd},
	{"export-gltf", newExportGLTFCmd},
	{"inspect", newInspectCmd},
	{"validate", newValidateCmd},
	{"sample", newSampleCmd},
	{"simulate", newSimulateCmd},
	{"view", newViewCmd},
	{"mot", newMotCmd},
	{"bpx", newBPXCmd},
}

// newRoot makes the command tree for argv: when its first word names a
// command, only that command under the root (making every command and its
// flags costs a tenth of a millisecond or more at start-up; running one needs
// no other), else all of them (help, an unknown command's suggestions).
func newRoot(argv []string) *cobra.Command {
	root := &cobra.Command{
		Use:   "bonebake",
		Short: "Bake skeletal animation into GPU-ready bone palettes",
		Long: `bonebake bakes skeletal animation once, offline, into BPAT bone palette files,
and reads, validates and samples them the way a game does at run time.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// The version is worked out only when asked for (the template runs it):
	// reading the build info, or the source tree's git files, costs every
	// other command start-up time. Version only has to be set for cobra to
	// offer --version.
	root.Version = "(asked for)"
	cobra.AddTemplateFunc("bonebakeVersion", version)
	root.SetVersionTemplate("bonebake {{bonebakeVersion}}{{\"\\n\"}}")
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return usageError{cmp.Or(unknownFlag(cmd.Flags(), err), plainFlagError(err))}
	})
	root.CompletionOptions.DisableDefaultCmd = true
	for _, s := range subcommandMakers {
		if len(argv) > 0 && argv[0] == s.name {
			root.AddCommand(s.make())
			return root
		}
	}
	for _, s := range subcommandMakers {
		root.AddCommand(s.make())
	}
	return root
}

// args wraps a cobra argument check so that its failure is a usage error, and
// refuses first a flag that took the next flag for its value (tookFlag).
func args(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, a []string) error {
		if err := tookFlag(cmd.Flags()); err != nil {
			return err
		}
		if err := check(cmd, a); err != nil {
			return usageError{argCount(cmd, err)}
		}
		return nil
	}
}

// argCount says cobra's "accepts 1 arg(s), received 0" in words, with the
// command's usage line: "inspect takes 1 argument, got none (usage: bonebake
// inspect FILE [--json])". Any other error is returned as it is.
func argCount(cmd *cobra.Command, err error) error {
	m := regexp.MustCompile(`^(?:accepts|requires (at least)) (\d+) arg\(s\), (?:only )?received (\d+)$`).FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	want, _ := strconv.Atoi(m[2])
	got := m[3]
	if got == "0" {
		got = "none"
	}
	takes := words.Plural(want, "argument")
	if m[1] != "" {
		takes = m[1] + " " + takes
	}
	name := strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ") // "bpx unpack"
	return fmt.Errorf("%s takes %s, got %s (usage: %s)", name, takes, got, cmd.UseLine())
}

// tookFlag refuses a flag whose value is another of the command's flags
// (`--package -o out.bpx`: the parser gives --package "-o", and out.bpx becomes
// an argument), a usage error naming both, where the command would go on to
// refuse what is left with a message about something else. A value that only
// looks like a flag (`--face -z`, `--fps -3`) is no flag's name and passes.
func tookFlag(fl *pflag.FlagSet) (err error) {
	fl.Visit(func(f *pflag.Flag) {
		vals := []string{f.Value.String()}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			vals = sv.GetSlice()
		}
		for _, v := range vals {
			name, _, _ := strings.Cut(strings.TrimPrefix(v, "--"), "=")
			isFlag := strings.HasPrefix(v, "--") && fl.Lookup(name) != nil ||
				len(v) == 2 && v[0] == '-' && fl.ShorthandLookup(v[1:]) != nil
			if isFlag && err == nil {
				err = usagef("--%s %s: --%s takes a value, and took the flag after it for one: write --%s VALUE, then %s", f.Name, v, f.Name, f.Name, v)
			}
		}
	})
	return err
}

// subcommands is the Args of a command group (mot, bpx): anything given is an
// unknown subcommand, a usage error that names the closest ones.
func subcommands(cmd *cobra.Command, a []string) error {
	if len(a) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", a[0], cmd.CommandPath())
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2 // as cobra uses for the root
	}
	if s := cmd.SuggestionsFor(a[0]); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, " or ") + "?"
	}
	return usageError{errors.New(msg)}
}

func run(argv []string, stdout, stderr io.Writer) int {
	// A set of files a killed command left half replaced, found by this one's
	// commit into the same folder, gets its line on this command's stderr.
	atomicfile.OnRecover = func(targets []string, finished bool) {
		fmt.Fprintln(stderr, recoverLine(targets, finished))
	}
	root := newRoot(argv)
	root.SetArgs(argv)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteC()
	if err == nil {
		madeDirs.Forget()
		return 0
	}
	madeDirs.Undo()
	var ee exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	fmt.Fprintln(stderr, "bonebake:", flagWords(err.Error()))
	var ue usageError
	if errors.As(err, &ue) || isCobraUsage(err) {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
		return exitUsage
	}
	return exitFailure
}

// isCobraUsage recognizes cobra's own errors for unknown commands.
func isCobraUsage(err error) bool {
	msg := err.Error()
	return len(msg) > 16 && msg[:16] == "unknown command "
}

// version is the module version and the VCS revision the binary was built from.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown version)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, when, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = ", " + s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = ", modified"
			}
		}
	}
	if rev != "" {
		v += fmt.Sprintf(" (revision %.12s%s%s)", rev, when, modified)
	} else if _, src, _, ok := runtime.Caller(0); ok {
		// go run, go test and a build with -buildvcs=false stamp no VCS
		// settings: the source tree the binary was compiled from (its path is
		// in the binary unless -trimpath) still says which commit it holds,
		// though not whether files were changed.
		if rev, ok := gitHead(filepath.Dir(src)); ok {
			v += fmt.Sprintf(" (revision %.12s of the source tree; the build stamped none, as go run and -buildvcs=false do not: changes since unknown)", rev)
		}
	}
	return v + ", " + bi.GoVersion
}

// gitHead finds the git repository holding dir and returns the commit its HEAD
// names, reading .git as git lays it out: a folder, or a worktree's file
// "gitdir: PATH"; HEAD a hash or "ref: refs/…", the ref a file of its own or a
// line of packed-refs, in the worktree's or the common folder.
func gitHead(dir string) (string, bool) {
	var gitDir string
	for d := dir; ; d = filepath.Dir(d) {
		p := filepath.Join(d, ".git")
		if st, err := os.Stat(p); err == nil {
			gitDir = p
			if !st.IsDir() {
				b, err := os.ReadFile(p)
				s, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
				if err != nil || !ok {
					return "", false
				}
				if !filepath.IsAbs(s) {
					s = filepath.Join(d, s)
				}
				gitDir = s
			}
			break
		}
		if filepath.Dir(d) == d {
			return "", false
		}
	}
	read := func(p string) string {
		b, _ := os.ReadFile(p)
		return strings.TrimSpace(string(b))
	}
	isHash := func(s string) bool {
		return len(s) >= 40 && strings.Trim(s, "0123456789abcdef") == ""
	}
	head := read(filepath.Join(gitDir, "HEAD"))
	ref, isRef := strings.CutPrefix(head, "ref: ")
	if !isRef {
		return head, isHash(head)
	}
	dirs := []string{gitDir}
	if c := read(filepath.Join(gitDir, "commondir")); c != "" {
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		dirs = append(dirs, c)
	}
	for _, g := range dirs {
		if h := read(filepath.Join(g, filepath.FromSlash(ref))); isHash(h) {
			return h, true
		}
	}
	for _, g := range dirs {
		for _, line := range strings.Split(read(filepath.Join(g, "packed-refs")), "\n") {
			if h, r, ok := strings.Cut(line, " "); ok && r == ref && isHash(h) {
				return h, true
			}
		}
	}
	return "", false
}

// flagValue matches pflag's message for a value it cannot parse.
// It is compiled on first use: only a bad flag value needs it.
var flagValue = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^invalid argument "(.*)" for "(.*)" flag: (.*)$`) })

// unknownFlag is pflag's "unknown flag: --fsp" with the command's flags a
// user may have meant, as cobra names the commands closest to an unknown one
// ("did you mean --fps?"); nil for any other error, or when none is close.
func unknownFlag(fl *pflag.FlagSet, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return nil
	}
	var names []string
	fl.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	close := words.Near(name, names)
	for i := range close {
		close[i] = "--" + close[i]
	}
	if len(close) == 0 {
		return nil
	}
	return fmt.Errorf("%v; did you mean %s?", err, strings.Join(close, " or "))
}

// plainFlagError says what a flag wanted instead of showing strconv's message.
func plainFlagError(err error) error {
	m := flagValue().FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	want := "a valid value"
	switch {
	case strings.Contains(m[3], "the largest species id"): // roster.CheckID's, which says it all
		return fmt.Errorf("%s %s", flagName(m[2]), m[3])
	case strings.Contains(m[3], "ParseFloat"):
		want = "a number"
	case strings.Contains(m[3], "ParseUint"), strings.Contains(m[3], "ParseInt"):
		switch {
		case strings.Contains(m[3], "out of range"):
			want = "a whole number in range"
		case strings.Contains(m[3], "ParseUint"):
			want = "a whole number of at least 0" // "-1" is a whole number too
		default:
			want = "a whole number"
		}
	case strings.Contains(m[3], "ParseBool"):
		want = "true or false"
	case strings.HasPrefix(m[3], `"`):
		// A value of this command's own (cameraFlag, seconds) says what it
		// wants after the value quoted: its words, not a vaguer guess.
		return fmt.Errorf("%s %s", flagName(m[2]), m[3])
	}
	return fmt.Errorf("%s %q: want %s", flagName(m[2]), m[1], want)
}

// flagName is the long name in pflag's "-o, --out" naming of a flag.
func flagName(flag string) string {
	if i := strings.LastIndex(flag, "--"); i >= 0 {
		return flag[i:]
	}
	return flag
}

func main() {
	atomicfile.HandleInterrupts(func(sig os.Signal, paths []string) {
		fmt.Fprintln(os.Stderr, interruptLine(sig, paths))
	})
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// interruptLine says what a SIGINT or SIGTERM interrupted: the one line printed
// before exiting 130 or 143. The handler runs only while files are being
// written or folders made for them are recorded (iopath.Dirs, which it
// removes when left empty); with no paths, no file was being written yet, or
// the writes it waited for (a set's renames) were finished.
func interruptLine(sig os.Signal, paths []string) string {
	name := "SIGINT"
	if sig == syscall.SIGTERM {
		name = "SIGTERM"
	}
	if len(paths) == 0 {
		if atomicfile.HeldOff() {
			return "bonebake: interrupted by " + name + " as files took their names; they were finished first (each set whole)"
		}
		return "bonebake: interrupted by " + name + "; no file was being written"
	}
	slices.Sort(paths)
	return fmt.Sprintf("bonebake: interrupted by %s while writing %s; nothing was written (an existing file is as it was)", name, strings.Join(paths, ", "))
}

// recoverLine says what became of a set of files whose commit was killed (kill
// -9) during its renames, which the next command writing into
// that folder found (atomicfile.Set).
func recoverLine(targets []string, finished bool) string {
	if finished {
		return fmt.Sprintf("bonebake: finished writing %s, left by a command killed as they took their names", strings.Join(targets, ", "))
	}
	return fmt.Sprintf("bonebake: %s: undid what a command killed while replacing them had begun; the previous files are whole", strings.Join(targets, ", "))
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// Command bonebake bakes skeletal animation into bone palette files and inspects,
// validates and samples them. Run `bonebake --help` for the commands.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
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

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "bonebake",
		Short: "Bake skeletal animation into GPU-ready bone palettes",
		Long: `bonebake bakes skeletal animation once, offline, into BPAT bone palette files,
and reads, validates and samples them the way a game does at run time.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(
		newBakeCmd(),
		newExportGLTFCmd(),
		newInspectCmd(),
		newValidateCmd(),
		newSampleCmd(),
		newSimulateCmd(),
		newViewCmd(),
	)
	return root
}

// args wraps a cobra argument check so that its failure is a usage error.
func args(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, a []string) error {
		if err := check(cmd, a); err != nil {
			return usageError{err}
		}
		return nil
	}
}

func run(argv []string, stdout, stderr io.Writer) int {
	root := newRoot()
	root.SetArgs(argv)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	if err == nil {
		return 0
	}
	var ee exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	fmt.Fprintln(stderr, "bonebake:", err)
	var ue usageError
	if errors.As(err, &ue) || isCobraUsage(err) {
		fmt.Fprintln(stderr, "Run 'bonebake --help' for usage.")
		return exitUsage
	}
	return exitFailure
}

// isCobraUsage recognizes cobra's own errors for unknown commands.
func isCobraUsage(err error) bool {
	msg := err.Error()
	return len(msg) > 16 && msg[:16] == "unknown command "
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

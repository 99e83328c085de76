package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/internal/iopath"
	"github.com/bonebake/bonebake/roster"

	"github.com/spf13/cobra"
)

func newValidateCmd() *cobra.Command {
	var (
		lenient bool
		asJSON  bool
		species speciesFlag
	)
	cmd := &cobra.Command{
		Use:   "validate [--lenient] [--species IDS] [--json] FILE...",
		Short: "Check BPAT and BPSM files against every rule of their format; one line per file",
		Long: `Check BPAT (.bpat) and snapshot mesh (.bpsm) files against every rule of their
format and print one line per file, naming the rule and byte offset of each problem.
Exit status 0 when all are valid, 1 when any is not, 2 on a usage error.

--lenient accepts what the game's own reader accepts (it skips the zero-byte,
layout, overlap, trailing-byte, non-finite float, fps and marker checks, and
accepts species ids it was not told of, with a warning). Species ids beyond the
built-in ones are valid when given with --species, up to 255: the runtime (crowd,
the viewer, simulate) holds no larger id, so bake refuses one and validate
reports it (a warning with --lenient).`,
		Example: `  bonebake validate assets/creatures/*.bpat assets/creatures/*.bpsm
  bonebake validate out/fox.bpat --species 6
  bonebake validate --json out/*.bpat`,
		Args: args(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, files []string) error {
			var results []validation
			bad := 0
			for _, path := range files {
				v := validate(path, lenient, species)
				if !v.Valid {
					bad++
				}
				results = append(results, v)
			}
			out := cmd.OutOrStdout()
			if asJSON {
				if err := writeJSON(out, results); err != nil {
					return err
				}
			} else {
				for _, v := range results {
					fmt.Fprintln(out, v.line())
				}
			}
			if bad > 0 {
				return exitError{exitFailure}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&lenient, "lenient", false, "accept what the game's own reader accepts")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON list, one object per file")
	species.add(cmd)
	return cmd
}

// validation is one file's verdict; its JSON keys follow docs/json.md.
type validation struct {
	File     string    `json:"file"`
	Format   string    `json:"format,omitempty"` // "bpat" or "bpsm"; empty when unrecognized
	Valid    bool      `json:"valid"`
	Summary  string    `json:"summary,omitempty"`
	Problems []problem `json:"problems"`
	// Warnings are what --lenient let pass that strict validation refuses.
	Warnings []problem `json:"warnings,omitempty"`
}

// problem is one broken rule.
type problem struct {
	Rule    string `json:"rule,omitempty"`
	Offset  int64  `json:"offset"`
	Index   int    `json:"index"`
	Message string `json:"message"`
}

func validate(path string, lenient bool, species speciesFlag) validation {
	v := validation{File: path, Problems: []problem{}}
	fail := func(err error) validation {
		var fe *formats.FormatError
		for _, e := range unwrapAll(err) {
			if errors.As(e, &fe) {
				v.Problems = append(v.Problems, problem{fe.Rule, fe.Offset, fe.Index, fe.Detail})
			}
		}
		if len(v.Problems) == 0 {
			v.Problems = append(v.Problems, problem{Offset: -1, Index: -1, Message: oneLine(path, err)})
		}
		return v
	}
	if err := iopath.Input(path); err != nil {
		return fail(err)
	}
	kind, err := formats.SniffFile(path)
	if err != nil {
		return fail(err)
	}
	v.Format, v.Summary = formatKey[kind], kind.Words()
	if v.Format == "" {
		v.Format = "unknown"
	}
	f, summary, err := openBaked(path, kind, species.options(lenient))
	if err != nil {
		v = fail(err)
		for i, p := range v.Problems {
			if p.Rule == formats.RuleSpecies {
				v.Problems[i].Message += speciesHint(path)
			}
		}
		return v
	}
	defer f.Close()
	v.Format, v.Summary = formatKey[kind], summary
	v.warn(f.Warnings())
	// The formats store a uint32, but bake, crowd and the viewer hold ids up to
	// roster.MaxID only: a file beyond it is valid bytes no runtime can play.
	if id, ok := formats.HeaderSpecies(path); ok {
		if err := roster.CheckID(id); err != nil {
			p := problem{formats.RuleSpecies, 8, -1, err.Error()}
			if !lenient {
				v.Problems = append(v.Problems, p)
				return v
			}
			v.Warnings = append(v.Warnings, p)
		}
	}
	v.Valid = true
	return v
}

// formatKey is the JSON name of a kind (docs/json.md).
var formatKey = map[formats.Kind]string{formats.BPAT: "bpat", formats.BPSM: "bpsm"}

func (v *validation) warn(ws []*formats.FormatError) {
	for _, w := range ws {
		v.Warnings = append(v.Warnings, problem{w.Rule, w.Offset, w.Index, w.Detail})
	}
}

func (v *validation) line() string {
	if v.Valid {
		line := fmt.Sprintf("%s: ok (%s)", v.File, v.Summary)
		for _, w := range v.Warnings {
			line += fmt.Sprintf("; warning: offset %d (%#x): %s: %s", w.Offset, w.Offset, w.Rule, w.Message)
		}
		return line
	}
	msgs := make([]string, len(v.Problems))
	for i, p := range v.Problems {
		msgs[i] = p.Message
		if p.Rule != "" {
			msgs[i] = fmt.Sprintf("offset %d (%#x): %s: %s", p.Offset, p.Offset, p.Rule, p.Message)
		}
	}
	if len(msgs) > 1 {
		return fmt.Sprintf("%s: INVALID: %s: %s", v.File, plural(len(msgs), "problem"), strings.Join(msgs, "; "))
	}
	return fmt.Sprintf("%s: INVALID: %s", v.File, msgs[0])
}

// unwrapAll lists err and, for an error joining several, each of them.
func unwrapAll(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// oneLine renders an error on one line without repeating the file name.
func oneLine(path string, err error) string {
	msg := strings.ReplaceAll(err.Error(), path+": ", "")
	msg = strings.ReplaceAll(msg, "\n  ", "; ")
	return strings.ReplaceAll(msg, "\n", " ")
}

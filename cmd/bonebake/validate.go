package main

import (
	"fmt"
	"strings"

	"bonebake/format"
	"bonebake/format/bpat"

	"github.com/spf13/cobra"
)

// knownSpecies is the species ids the commands accept in a BPAT file: the
// built-in ones.
var knownSpecies = format.KnownSpecies(0, 1, 2, 3, 4, 5)

func newValidateCmd() *cobra.Command {
	var lenient bool
	cmd := &cobra.Command{
		Use:   "validate [--lenient] FILE...",
		Short: "Check BPAT files against every rule of the format; one line per file",
		Long: `Check BPAT files against every rule of the format and print one line per file.
Exit status 0 when all are valid, 1 when any is not, 2 on a usage error.
--lenient accepts what the game's own reader accepts (it lets zero-byte, overlap,
trailing-byte, fps, marker, canonical-layout, float and species problems pass).`,
		Args: args(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, files []string) error {
			opts := []bpat.Option{knownSpecies}
			if lenient {
				opts = append(opts, format.Lenient())
			}
			out := cmd.OutOrStdout()
			bad := 0
			for _, path := range files {
				f, err := bpat.Open(path, opts...)
				if err != nil {
					bad++
					fmt.Fprintf(out, "%s: INVALID: %s\n", path, oneLine(path, err))
					continue
				}
				h := f.Header()
				fmt.Fprintf(out, "%s: ok (BPAT v%d, species %d, %d bones, %d clips, %d frames, %d sockets)\n",
					path, h.Version, h.SpeciesID, h.BoneCount, h.ClipCount, h.FrameTotal, h.SocketCount)
				f.Close()
			}
			if bad > 0 {
				return exitError{exitFailure}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&lenient, "lenient", false, "accept what the game's own reader accepts")
	return cmd
}

// oneLine renders an error on one line without repeating the file name.
func oneLine(path string, err error) string {
	msg := strings.ReplaceAll(err.Error(), path+": ", "")
	msg = strings.ReplaceAll(msg, "\n  ", "; ")
	return strings.ReplaceAll(msg, "\n", " ")
}

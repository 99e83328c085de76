package main

import "github.com/spf13/pflag"

// A flagRule is a rule of a command about where some of its flags apply:
// while when holds (a way the command runs, as its arguments and other flags
// choose it: bake with no model bakes the built-in creatures), each of flags
// is refused, "--FLAG why".
type flagRule struct {
	when  bool
	flags []string
	why   string
}

// refuseFlags is the usage error of the first of rules that holds and one of
// whose flags fl was given, or nil: each command's rules about which of its
// flags apply to which of its ways to run, as one table checked in one place.
func refuseFlags(fl *pflag.FlagSet, rules []flagRule) error {
	for _, r := range rules {
		if f := changed(fl, r.flags...); r.when && f != "" {
			return usagef("--%s %s", f, r.why)
		}
	}
	return nil
}

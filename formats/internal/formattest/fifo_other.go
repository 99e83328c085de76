//go:build !unix

package formattest

import "errors"

func mkfifo(string) error { return errors.New("no named pipes on this system") }

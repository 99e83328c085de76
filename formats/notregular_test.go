package formats_test

import (
	"testing"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/internal/formattest"
)

// SniffFile, which inspect and validate call first, refuses a pipe or device
// rather than wait on it or read its first bytes as a file's.
func TestSniffFileNotRegular(t *testing.T) {
	formattest.NotRegular(t, func(path string) error { _, err := formats.SniffFile(path); return err })
}

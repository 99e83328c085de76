package mot

import (
	"testing"

	"github.com/bonebake/bonebake/formats/internal/formattest"
)

func TestOpenNotRegular(t *testing.T) {
	formattest.NotRegular(t, func(path string) error { _, err := Open(path); return err })
	formattest.NotRegular(t, func(path string) error { _, err := OpenDump(path); return err })
}

package gait

import (
	"testing"

	"github.com/bonebake/bonebake/formats/internal/formattest"
)

func TestOpenNotRegular(t *testing.T) {
	formattest.NotRegular(t, func(path string) error { _, err := Open(path); return err })
}

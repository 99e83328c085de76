package bpx

import (
	"testing"

	"github.com/bonebake/bonebake/formats/internal/formattest"
)

func TestOpenNotRegular(t *testing.T) {
	formattest.NotRegular(t, func(path string) error {
		f, err := Open(path)
		if err == nil {
			f.Close()
		}
		return err
	})
}

package bpx_test

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/bonebake/bonebake/formats/bpx"
)

// Pack two files into a package and read one back: WritePackage streams each
// object from its Open function; ReadPackage lists them and Open reads one.
func ExampleWritePackage() {
	files := map[string]string{"creatures/horse.bpat": "palettes…", "README.txt": "hello"}
	var objs []bpx.PackInput
	for _, name := range []string{"README.txt", "creatures/horse.bpat"} {
		body := files[name]
		objs = append(objs, bpx.PackInput{Name: name, Size: uint64(len(body)),
			Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(body)), nil }})
	}
	path := filepath.Join(os.TempDir(), "example.bpx")
	out, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	defer os.Remove(path)
	if err := bpx.WritePackage(out, objs, bpx.PackOptions{Compression: bpx.XZ, Check: bpx.CRC32}); err != nil {
		log.Fatal(err)
	}
	out.Close()

	f, err := bpx.Open(path)
	if err != nil {
		log.Fatal(err) // a *formats.FormatError naming the file, the rule and the offset
	}
	defer f.Close()
	p, err := bpx.ReadPackage(f)
	if err != nil {
		log.Fatal(err)
	}
	for _, o := range p.Objects {
		fmt.Println(o.Name, o.Size)
	}
	r, err := p.Open(1)
	if err != nil {
		log.Fatal(err)
	}
	var b bytes.Buffer
	io.Copy(&b, r)
	fmt.Println(b.String())
	// Output:
	// README.txt 5
	// creatures/horse.bpat 11
	// palettes…
}

package bpx

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/formats"
)

func readObject(t testing.TB, p *Package, i int) []byte {
	t.Helper()
	r, err := p.Open(i)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func input(name string, b []byte) PackInput {
	return PackInput{Name: name, Size: uint64(len(b)), Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }}
}

var demoObjects = []PackInput{input("dir/a.txt", []byte("alpha content\n")), input("b.bin", []byte{0, 1, 2, 3, 4, 5, 6, 7})}

func demoOptions() PackOptions {
	return PackOptions{
		Ext:         PackageExt{Arch: 0, Platform: 0, Generator: [2]byte{'P', 'K'}},
		Compression: XZ, Check: CRC32,
		Metadata: (&Object{}).Set("Name", StringValue("demo")).Set("Version", U32Value(3)),
	}
}

// TestPackage07 reads the SDK's demo package as its README describes it, and
// packing the same objects with the same options gives its bytes.
func TestPackage07(t *testing.T) {
	want := shared(t, "07_package.bpx")
	p, err := ReadPackage(openBytes(t, want))
	if err != nil {
		t.Fatal(err)
	}
	if p.Ext != (PackageExt{0, 0, [2]byte{'P', 'K'}}) || len(p.Objects) != 2 {
		t.Fatalf("ext %+v, %d objects", p.Ext, len(p.Objects))
	}
	for i, ob := range demoObjects {
		r, _ := ob.Open()
		b, _ := io.ReadAll(r)
		if p.Objects[i].Name != ob.Name || !bytes.Equal(readObject(t, p, i), b) {
			t.Errorf("object %d: %q %q", i, p.Objects[i].Name, readObject(t, p, i))
		}
	}
	if v, _ := p.Metadata.Get("Name"); v.Str != "demo" {
		t.Errorf("metadata Name %+v", v)
	}
	if v, _ := p.Metadata.Get("Version"); v.Kind != U32 || v.Uint != 3 {
		t.Errorf("metadata Version %+v", v)
	}
	var buf Buffer
	if err := WritePackage(&buf, demoObjects, demoOptions()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("packed\n% x\nwant\n% x", buf.Bytes(), want)
	}
}

func TestPackageV2RS(t *testing.T) {
	b := shared(t, "package_v2_bpxrs.bpx")
	f := openBytes(t, b)
	if f.Header.FileSize != 6974 || len(b) != 6994 || len(f.Sections) != 10 {
		t.Fatalf("file_size %d, %d bytes, %d sections", f.Header.FileSize, len(b), len(f.Sections))
	}
	p, err := ReadPackage(f)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]uint64{"test_new": 940, "bpx": 907}
	if len(p.Objects) != 2 {
		t.Fatalf("%d objects", len(p.Objects))
	}
	for i, o := range p.Objects {
		if want[o.Name] != o.Size || uint64(len(readObject(t, p, i))) != o.Size {
			t.Errorf("object %q of %d bytes", o.Name, o.Size)
		}
	}
}

func TestPackageV1(t *testing.T) {
	f := openBytes(t, shared(t, "package_v1_bpxtools.bpx"))
	p, err := ReadPackage(f)
	if err != nil {
		t.Fatal(err)
	}
	if f.Header.Version != 1 || len(p.Objects) != 1 || p.Objects[0].Name != "LICENSE_LF.txt" || p.Objects[0].Size != 1517 {
		t.Fatalf("version %d, objects %+v", f.Header.Version, p.Objects)
	}
	if b := readObject(t, p, 0); !strings.HasPrefix(string(b), "Copyright (c) 2020, BlockProject 3D") {
		t.Errorf("content %.40q", b)
	}
}

// TestPackageSpansSections packs objects across several data sections (with a
// small section limit through a big object set) and reads them back.
func TestPackageSpansSections(t *testing.T) {
	big := make([]byte, 3<<20)
	for i := range big {
		big[i] = byte(i / 3)
	}
	objs := []PackInput{input("a", big[:100]), input("empty", nil), input("big", big), input("c", []byte("tail"))}
	for _, comp := range []Compression{NoCompression, XZ, Zlib} {
		var buf Buffer
		if err := WritePackage(&buf, objs, PackOptions{Compression: comp, Check: CRC32}); err != nil {
			t.Fatal(err)
		}
		p, err := ReadPackage(openBytes(t, buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		for i, ob := range objs {
			r, _ := ob.Open()
			want, _ := io.ReadAll(r)
			if got := readObject(t, p, i); !bytes.Equal(got, want) || p.Objects[i].Name != ob.Name {
				t.Errorf("compression %d object %d: %d bytes", comp, i, len(got))
			}
		}
	}
}

// TestHostilePackages: object tables that point past the data or the strings
// are refused when the package is read, before any object is.
func TestHostilePackages(t *testing.T) {
	var buf Buffer
	if err := WritePackage(&buf, demoObjects, PackOptions{Check: WeakCheck}); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	table := int(le.Uint64(good[40+24:])) // section 1 is the object table
	edit := func(at int, v uint64, n int) *File {
		b := append([]byte{}, good...)
		if n == 8 {
			le.PutUint64(b[at:], v)
		} else {
			le.PutUint32(b[at:], uint32(v))
		}
		// Keep the table's weak checksum right, so the rule under test is hit.
		le.PutUint32(b[40+24+16:], WeakSum(b[table:table+40]))
		le.PutUint32(b[4:], headerChecksum(b[:HeaderSize+SectionEntrySize*3]))
		return openBytes(t, b)
	}
	for _, tc := range []struct {
		what     string
		at       int
		v        uint64
		n        int
		wantRule string
	}{
		{"size past the data", table, 1 << 40, 8, formats.RuleBounds},
		{"name past the strings", table + 8, 999, 4, formats.RuleBounds},
		{"start not a data section", table + 12, 0, 4, formats.RuleBounds},
		{"start past the table", table + 12, 1 << 31, 4, formats.RuleBounds},
		{"offset past the section", table + 16, 1 << 20, 4, formats.RuleBounds},
	} {
		_, err := ReadPackage(edit(tc.at, tc.v, tc.n))
		var fe *formats.FormatError
		if !errors.As(err, &fe) || fe.Rule != tc.wantRule {
			t.Errorf("%s: %v", tc.what, err)
		}
	}
}

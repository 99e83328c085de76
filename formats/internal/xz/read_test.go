package xz

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	ulxz "github.com/ulikunitz/xz"
)

// xzCompress runs the xz command on data with args.
func xzCompress(t testing.TB, data []byte, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(xzTool(t), append([]string{"-c"}, args...)...)
	cmd.Stdin = bytes.NewReader(data)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("xz %v: %v: %s", args, err, stderr.Bytes())
	}
	return out.Bytes()
}

// configs are the reader settings every stream is decoded with: parallel,
// one worker, and streaming only (no block fits the memory).
var configs = []struct {
	name string
	cfg  ReaderConfig
}{
	{"parallel", ReaderConfig{Workers: 4, MaxMemory: 256 << 20}},
	{"one-worker", ReaderConfig{Workers: 1}},
	{"streaming", ReaderConfig{MaxMemory: 1}},
}

// decodeAll reads the whole stream with cfg, through reads of odd sizes.
func decodeAll(b []byte, cfg ReaderConfig) ([]byte, error) {
	r, err := NewReader(bytes.NewReader(b), cfg)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	buf := make([]byte, 77777)
	for {
		n, err := r.Read(buf)
		out.Write(buf[:n])
		if err == io.EOF {
			return out.Bytes(), nil
		}
		if err != nil {
			return out.Bytes(), err
		}
	}
}

// expectDecodes checks that z decodes to want with every configuration.
func expectDecodes(t *testing.T, z, want []byte) {
	t.Helper()
	for _, c := range configs {
		got, err := decodeAll(z, c.cfg)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: decoded %d bytes, want %d; first difference at %d", c.name, len(got), len(want), firstDiff(got, want))
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func TestReadXZTool(t *testing.T) {
	slow(t)
	xzTool(t)
	// Big enough for two to four blocks in the cases that cut it into blocks
	// (the shape, not the size, is what is tested: every filter setting and
	// block layout is there).
	data := mixedData(5<<18, 1)
	small := mixedData(100_000, 2)
	cases := []struct {
		data []byte
		args []string
	}{
		{small, []string{"-0"}},
		{small, []string{"-6"}},
		{small, []string{"-9e"}},
		{small, []string{"--check=none"}},
		{small, []string{"--check=crc32"}},
		{small, []string{"--check=crc64"}},
		{small, []string{"--check=sha256"}},
		{nil, []string{"-6"}},
		{[]byte("a"), []string{"-6"}},
		{bytes.Repeat([]byte{0}, 5<<20), []string{"-6"}},
		{data, []string{"-0"}},
		{data, []string{"-6"}},
		{data, []string{"-9e", "--lzma2=preset=9e,lc=1,lp=3,pb=0"}},
		{data, []string{"--lzma2=preset=6,lc=4,lp=0,pb=4"}},
		{data, []string{"-T2", "--block-size=300000"}},
		{data, []string{"-T2", "-0", "--block-size=65536", "--check=sha256"}},
		{data, []string{"-T1", "--block-size=1000000"}}, // single-threaded: no sizes in the headers? xz writes them anyway
		{data, []string{"--format=xz", "--block-list=100000,700000,0"}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.args, len(c.data)), func(t *testing.T) {
			expectDecodes(t, xzCompress(t, c.data, c.args...), c.data)
		})
	}
}

func TestReadConcatenatedAndPadding(t *testing.T) {
	xzTool(t)
	a, b := mixedData(200_000, 3), mixedData(300_000, 4)
	za, zb := xzCompress(t, a, "-1"), xzCompress(t, b, "-T2", "--block-size=50000", "--check=crc32")
	want := append(append([]byte{}, a...), b...)
	z := append(append([]byte{}, za...), zb...)
	expectDecodes(t, z, want)
	padded := append(append(append(append([]byte{}, za...), make([]byte, 8)...), zb...), make([]byte, 4)...)
	expectDecodes(t, padded, want)
	empty := xzCompress(t, nil)
	expectDecodes(t, append(append(append([]byte{}, empty...), za...), empty...), a)
}

// TestReadTestdata decodes the committed files made by xz (they test the
// package where xz is not installed); each dec_NAME.xz decodes to the
// bytes named in its .txt sidecar's rule.
func TestReadTestdata(t *testing.T) {
	files, _ := filepath.Glob("testdata/dec_*.xz")
	if len(files) == 0 {
		t.Fatal("no testdata/dec_*.xz files")
	}
	for _, f := range files {
		z, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want := testdataWant(t, f)
		t.Run(filepath.Base(f), func(t *testing.T) { expectDecodes(t, z, want) })
	}
}

// testdataWant is the content a testdata file was made from (see
// testdata/dec_README.txt and TestWriteTestdata).
func testdataWant(t *testing.T, name string) []byte {
	switch filepath.Base(name) {
	case "dec_mixed_6.xz", "dec_mixed_sha256.xz", "dec_mixed_blocks.xz":
		return mixedData(60_000, 7)
	case "dec_concat_pad.xz":
		return append(mixedData(20_000, 8), mixedData(30_000, 9)...)
	case "dec_empty.xz":
		return nil
	}
	t.Fatalf("%s: no rule for its content", name)
	return nil
}

// TestReadUlikunitz decodes streams written by github.com/ulikunitz/xz,
// the second independent encoder, at random sizes and block sizes.
func TestReadUlikunitz(t *testing.T) {
	slow(t)
	rng := rand.New(rand.NewPCG(5, 5))
	for i := range 12 {
		n := rng.IntN(1 << 20)
		if i == 0 {
			n = 0
		}
		data := mixedData(n, uint64(i))
		cfg := ulxz.WriterConfig{DictCap: 1 << (12 + rng.IntN(12))}
		if i%2 == 1 {
			cfg.BlockSize = int64(1 + rng.IntN(1<<19))
		}
		cfg.CheckSum = []byte{ulxz.None, ulxz.CRC32, ulxz.CRC64, ulxz.SHA256}[i%4]
		if cfg.CheckSum == ulxz.None {
			cfg.NoCheckSum = true
		}
		var z bytes.Buffer
		w, err := cfg.NewWriter(&z)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		t.Run(fmt.Sprint(i, n, cfg.BlockSize), func(t *testing.T) { expectDecodes(t, z.Bytes(), data) })
	}
}

// errorAt decodes z and expects an *Error whose message contains msg.
func errorAt(t *testing.T, z []byte, msg string) {
	t.Helper()
	for _, c := range configs {
		_, err := decodeAll(z, c.cfg)
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("%s: error %v, want an *Error containing %q", c.name, err, msg)
		}
		if !bytes.Contains([]byte(e.Msg), []byte(msg)) {
			t.Fatalf("%s: error %q, want %q", c.name, e, msg)
		}
	}
}

// TestWriteTestdata regenerates testdata/dec_*.xz with the xz command when
// XZ_WRITE_TESTDATA=1; otherwise it is skipped.
func TestWriteTestdata(t *testing.T) {
	if os.Getenv("XZ_WRITE_TESTDATA") != "1" {
		t.Skip("set XZ_WRITE_TESTDATA=1 to regenerate testdata/dec_*.xz")
	}
	mixed := mixedData(60_000, 7)
	files := map[string][]byte{
		"dec_mixed_6.xz":      xzCompress(t, mixed, "-6"),
		"dec_mixed_sha256.xz": xzCompress(t, mixed, "-0", "--check=sha256"),
		"dec_mixed_blocks.xz": xzCompress(t, mixed, "-T2", "--block-size=16384", "--check=crc32"),
		"dec_empty.xz":        xzCompress(t, nil),
	}
	concat := xzCompress(t, mixedData(20_000, 8), "-1")
	concat = append(concat, make([]byte, 4)...)
	concat = append(concat, xzCompress(t, mixedData(30_000, 9), "--check=none")...)
	files["dec_concat_pad.xz"] = append(concat, make([]byte, 8)...)
	for name, b := range files {
		if err := os.WriteFile(filepath.Join("testdata", name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

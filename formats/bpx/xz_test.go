package bpx

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/ulikunitz/xz"
)

// rawContainer is a container of one section holding raw as stored, flagged
// flags, declaring size and the CRC of data.
func rawContainer(raw, data []byte, flags Flags) []byte {
	b := make([]byte, HeaderSize+SectionEntrySize, HeaderSize+SectionEntrySize+len(raw))
	h := Header{Type: 'X', Version: 2, SectionCount: 1, FileSize: uint64(len(b) + len(raw))}
	h.encode(b)
	s := SectionHeader{Pointer: uint64(len(b)), CSize: uint32(len(raw)), Size: uint32(len(data)), Checksum: CRC(data), Type: 1, Flags: flags | FlagCRC32}
	s.encode(b[HeaderSize:])
	le.PutUint32(b[4:], headerChecksum(b))
	return append(b, raw...)
}

func xzStream(t *testing.T, data []byte, blockSize int64) []byte {
	var buf bytes.Buffer
	w, err := xz.WriterConfig{NoCheckSum: true, BlockSize: blockSize}.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestXZBlocksAndStreams: a section may be several blocks, or several whole
// streams one after another.
func TestXZBlocksAndStreams(t *testing.T) {
	data := []byte(strings.Repeat("several blocks and streams ", 5000))
	multiBlock := xzStream(t, data, 16<<10)
	concatenated := append(xzStream(t, data[:50000], 0), xzStream(t, data[50000:], 0)...)
	for name, raw := range map[string][]byte{"blocks": multiBlock, "streams": concatenated} {
		got, err := openBytes(t, rawContainer(raw, data, FlagXZ)).ReadSection(0)
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestXZDictionaryLimit: a stream asking for a 4 GiB dictionary is refused
// before the decoder allocates it.
func TestXZDictionaryLimit(t *testing.T) {
	data := []byte("a small payload")
	raw := xzStream(t, data, 0)
	// Block header at 12: size byte, flags 0 (no sizes, one filter), then the
	// LZMA2 filter 0x21, one property byte: the dictionary code.
	if raw[13] != 0 || raw[14] != 0x21 || raw[15] != 1 {
		t.Fatalf("unexpected block header % x", raw[12:20])
	}
	raw[16] = 40
	// Reseal the block header's CRC32 so that only the dictionary is wrong.
	end := 12 + (int(raw[12])+1)*4
	binary.LittleEndian.PutUint32(raw[end-4:], crc32.ChecksumIEEE(raw[12:end-4]))
	_, err := openBytes(t, rawContainer(raw, data, FlagXZ)).ReadSection(0)
	wantRule(t, err, RuleCompression)
	if !strings.Contains(err.Error(), "dictionary") {
		t.Errorf("error does not say why: %v", err)
	}
}

package mot

import (
	"strings"
	"testing"
)

// TestParseDumpNeedsRecords: JSON that is not a dump (the peer decoder's
// golden file: frames, decode, frame) is refused, where it decoded to a motion
// of no records and encoded to an empty file; a dump with no records, which
// says so, still parses.
func TestParseDumpNeedsRecords(t *testing.T) {
	if _, err := ParseDump([]byte(`{"frames": 96, "decode": {"-1/0": ["3ed9000000000000"]}, "frame": 0}`)); err == nil || !strings.Contains(err.Error(), `not a motion dump: it has no "records"`) {
		t.Errorf("a golden file: %v; want refused for having no records", err)
	}
	d, err := ParseDump([]byte(`{"family": "bayo2", "byte_order": "little", "frame_count": 4, "flags": 0, "name": "empty", "records": []}`))
	if err != nil || d.FrameCount != 4 || len(d.Records) != 0 {
		t.Errorf("an empty dump: %+v, %v", d, err)
	}
}

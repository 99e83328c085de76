package mot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/internal/regfile"
)

// The dump format: a motion's values at every frame as JSON (docs/formats/mot.md
// §15), what `bonebake mot dump --json` prints and `mot encode` reads back:
// {"family", "byte_order", "frame_count", "flags", "name", "records": [{"bone",
// "track", "type", "values": [one float per frame]}]}, records in file order.

// Dump is a motion's values at every frame. FrameCount is the frame count, as
// everywhere else; Frames is the key dumps written before 2026-11-24 used, which
// ParseDump still understands.
type Dump struct {
	Family     string       `json:"family"`
	ByteOrder  string       `json:"byte_order"`
	FrameCount int          `json:"frame_count"`
	Frames     int          `json:"frames,omitempty"`
	Flags      uint16       `json:"flags"`
	Name       string       `json:"name"`
	Records    []DumpRecord `json:"records"`
}

// DumpRecord is one track's values, one per frame.
type DumpRecord struct {
	Bone   int16     `json:"bone"`
	Track  uint8     `json:"track"`
	Type   int8      `json:"type"`
	Values []float64 `json:"values"`
}

// WriteDump writes m in the dump format, record by record, as json.MarshalIndent
// would write its Dump, without holding every value at once: memory is one
// record's values, whatever records × frames come to. Records that share their
// data are decoded once.
func WriteDump(w io.Writer, m *Motion) error {
	head, err := json.MarshalIndent(struct {
		Family     string `json:"family"`
		ByteOrder  string `json:"byte_order"`
		FrameCount int    `json:"frame_count"`
		Flags      uint16 `json:"flags"`
		Name       string `json:"name"`
	}{m.Family.String(), OrderName(m.Order), m.Frames, m.Flags, m.Name}, "", "  ")
	if err != nil {
		return err
	}
	head = bytes.TrimSuffix(head, []byte("\n}"))
	if len(m.Records) == 0 {
		_, err = fmt.Fprintf(w, "%s,\n  \"records\": []\n}\n", head)
		return err
	}
	// Records are appended to buf by appendDumpRecord (json.MarshalIndent's
	// bytes without reflection, which was most of the time) and written in
	// pieces of about 64 KiB.
	buf := make([]byte, 0, 80<<10)
	buf = append(append(buf, head...), ",\n  \"records\": ["...)
	type shared struct {
		data        *byte
		size, count int
		typ         int8
	}
	curves := map[shared]Curve{}
	values := make([]float64, m.Frames)
	for i, r := range m.Records {
		key := shared{nil, len(r.Data), r.Count, r.Type}
		if len(r.Data) > 0 {
			key.data = &r.Data[0]
		}
		c, ok := curves[key]
		if !ok || key.data == nil {
			if c, err = m.Curve(i); err != nil {
				return err
			}
			if key.data != nil {
				curves[key] = c
			}
		}
		c.Eval(values)
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, "\n    "...)
		if buf, err = appendDumpRecord(buf, DumpRecord{r.Bone, r.Track, r.Type, values}); err != nil {
			return fmt.Errorf("record %d (bone %d, track %d): %w", i, r.Bone, r.Track, err)
		}
		if len(buf) >= 64<<10 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	buf = append(buf, "\n  ]\n}\n"...)
	_, err = w.Write(buf)
	return err
}

// appendDumpRecord appends r as json.MarshalIndent(r, "    ", "  ") writes it,
// byte for byte (TestAppendDumpRecord): integers in decimal, each value as
// encoding/json formats a float64 (the shortest form that reads back to the
// same bits, in exponent form below 1e-6 and from 1e21, "e-07" written "e-7").
// JSON has no NaN or infinity: such a value is an error, as it is for
// encoding/json.
func appendDumpRecord(b []byte, r DumpRecord) ([]byte, error) {
	b = append(b, "{\n      \"bone\": "...)
	b = strconv.AppendInt(b, int64(r.Bone), 10)
	b = append(b, ",\n      \"track\": "...)
	b = strconv.AppendUint(b, uint64(r.Track), 10)
	b = append(b, ",\n      \"type\": "...)
	b = strconv.AppendInt(b, int64(r.Type), 10)
	b = append(b, ",\n      \"values\": "...)
	switch {
	case r.Values == nil:
		b = append(b, "null"...)
	case len(r.Values) == 0:
		b = append(b, "[]"...)
	default:
		b = append(b, '[')
		for f, v := range r.Values {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return b, fmt.Errorf("frame %d: %v has no JSON form", f, v)
			}
			if f > 0 {
				b = append(b, ',')
			}
			b = append(b, "\n        "...)
			b = appendJSONFloat(b, v)
		}
		b = append(b, "\n      ]"...)
	}
	return append(b, "\n    }"...), nil
}

// appendJSONFloat appends a finite v as encoding/json writes a float64.
func appendJSONFloat(b []byte, v float64) []byte {
	format := byte('f')
	if a := math.Abs(v); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, v, format, -1, 64)
	if format == 'e' {
		// e-09 → e-9, as encoding/json does
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// OpenDump reads a dump from a file; errors name it.
func OpenDump(path string) (*Dump, error) {
	b, err := regfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	d, err := ParseDump(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

// ParseDump parses a dump and checks it: every record has one finite value per
// frame.
func ParseDump(b []byte) (*Dump, error) {
	var d Dump
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, formats.JSONError(b, err, "not a motion dump")
	}
	// Other JSON decodes too, to a motion of no records: a dump says
	// "records", even when it has none.
	var keys map[string]json.RawMessage
	if json.Unmarshal(b, &keys) != nil || keys["records"] == nil {
		return nil, errors.New(`not a motion dump: it has no "records" (mot dump writes family, byte_order, frame_count, flags, name and records)`)
	}
	if d.FrameCount == 0 {
		d.FrameCount = d.Frames // a dump written before the key was frame_count
	}
	for i, r := range d.Records {
		if len(r.Values) != d.FrameCount {
			return nil, fmt.Errorf("record %d (bone %d, track %d) has %d values; \"frame_count\" is %d", i, r.Bone, r.Track, len(r.Values), d.FrameCount)
		}
		for x, v := range r.Values {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("record %d frame %d: %v", i, x, v)
			}
		}
	}
	return &d, nil
}

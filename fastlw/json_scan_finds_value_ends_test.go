package fastlw

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// scanWhole feeds data to a new jsonScan in one chunk and returns where the
// value ends (-1 when it does not) as skipValue answers.
func scanWhole(data []byte) int {
	end, ok := skipValue(data, 0)
	if !ok {
		return -1
	}
	return end
}

// scanInChunks feeds data to a new jsonScan in chunks of size bytes and
// returns where the value ends, -1 when it does not: the incremental case,
// whose answer must not depend on where the chunks are cut.
func scanInChunks(data []byte, size int) int {
	var s jsonScan
	for at := 0; at < len(data); at += size {
		n, step := s.feed(data[at:min(at+size, len(data))])
		switch step {
		case scanDone:
			return at + n
		case scanInvalid:
			return -1
		}
	}
	if s.endsAtEOF() {
		return len(data)
	}
	return -1
}

// TestTheJSONScannerFindsWhereAValueEndsWhereverTheChunksAreCut pins the
// scanner's invariants (see json_scan.go) on each kind of value, fed whole
// and in chunks of every size.
func TestTheJSONScannerFindsWhereAValueEndsWhereverTheChunksAreCut(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	tests := []struct {
		name, data string
		end        int // -1: no value ends
	}{
		{"an object with nesting", `{"a":[1,{"b":{}}],"c":"d"} tail`, 26},
		{"brackets inside strings", `{"a":"}]{["}x`, 12},
		{"an escaped quote", `{"a":"x\"}"}x`, 12},
		{"an escaped backslash before the closing quote", `{"a":"x\\"}x`, 11},
		{"three backslashes and a quote", `["\\\"]"]x`, 9},
		{"a unicode escape", `{"a":"\u0022"}`, 14},
		{"a top-level string", `"ab\"c" rest`, 7},
		{"a number ended by a comma", `12.5e3,`, 6},
		{"a literal ended by the input", `true`, 4},
		{"a literal ended by a bracket", `null]`, 4},
		{"mismatched brackets", `{"a":[1}]`, -1},
		{"an array closed by a brace", `[1}`, -1},
		{"an unterminated string", `{"a":"b}`, -1},
		{"an unterminated object", `{"a":{}`, -1},
		{"a value starting with a delimiter", `,1`, -1},
		{"a value starting with a closing brace", `}`, -1},
		{"no bytes", ``, -1},
		{"nesting at the depth limit", deep(maxScanDepth), 2 * maxScanDepth},
		{"nesting beyond the depth limit", deep(maxScanDepth + 1), -1},
		{"control bytes in a string are not checked", "[\"\x01\"]", 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(tt.data)
			if got := scanWhole(data); got != tt.end {
				t.Fatalf("whole: end %d, want %d", got, tt.end)
			}
			for size := 1; size <= len(data); size++ {
				if got := scanInChunks(data, size); got != tt.end {
					t.Fatalf("chunks of %d: end %d, want %d", size, got, tt.end)
				}
			}
		})
	}
}

// FuzzTheJSONScannerEndsAValueWhereEncodingJSONDoes compares, on arbitrary
// bytes, the incremental scan in chunks of every size with the whole scan,
// and the end of a first value that is an object, an array or a string
// with encoding/json's Decoder (where it reads one, not nested beyond
// maxScanDepth). A top-level number or literal is left out of the second
// check: the Decoder ends it at the first byte that cannot continue it
// ("1x" is 1 and an error later), the scanner at a delimiter, and no caller
// scans one but inside an object, where such bytes are invalid JSON.
func FuzzTheJSONScannerEndsAValueWhereEncodingJSONDoes(f *testing.F) {
	for _, pod := range realisticPods(f, 2) {
		f.Add(eventFrame("ADDED", pod))
	}
	for _, seed := range append(append([]string{}, edgeCaseObjects...), framingSeeds...) {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		data = data[skipSpace(data, 0):]
		whole := scanWhole(data)
		for size := 1; size <= min(len(data), 64); size++ {
			if got := scanInChunks(data, size); got != whole {
				t.Fatalf("%q: chunks of %d end at %d, the whole scan at %d", data, size, got, whole)
			}
		}
		if len(data) == 0 || !strings.ContainsRune(`{["`, rune(data[0])) {
			return
		}
		decoder := json.NewDecoder(bytes.NewReader(data))
		var raw json.RawMessage
		if decoder.Decode(&raw) != nil || nestedBeyondScanDepth(raw) {
			return
		}
		if want := int(decoder.InputOffset()); whole != want {
			t.Fatalf("%q: the scan ends the value at %d, encoding/json at %d", data, whole, want)
		}
	})
}

// nestedBeyondScanDepth reports whether the valid JSON value nests more
// than maxScanDepth brackets.
func nestedBeyondScanDepth(value []byte) bool {
	decoder := json.NewDecoder(bytes.NewReader(value))
	depth := 0
	for {
		token, err := decoder.Token()
		if err != nil {
			return false
		}
		switch token {
		case json.Delim('{'), json.Delim('['):
			if depth++; depth > maxScanDepth {
				return true
			}
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
}

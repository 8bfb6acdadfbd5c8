package fastlw

import "bytes"

// The JSON scanner of fastlw: it finds where JSON values end without
// decoding them, over one buffer (skipValue and the walkers built on it:
// scanObject, scanArray, scanWholeObject, scanTopLevel) or incrementally
// over the consecutive chunks of a stream (jsonScan.feed, which cuts watch
// frames without scanning a frame's bytes twice). Every JSON scan of fastlw
// (a watch event's envelope, an object's kind, a watch frame's end, a list
// page's items) goes through it.
//
// Invariants, which the callers rely on:
//   - On valid JSON, a value ends exactly where a JSON parser ends it, and
//     the walkers visit exactly the members and elements a parser sees.
//   - A string ends at the first quote after it that is not escaped (not
//     preceded by an odd run of backslashes; in valid JSON no byte of an
//     escape but its backslash is a quote or a backslash). What a string
//     holds is not checked: escapes, control bytes, UTF-8.
//   - Brackets outside strings are matched by kind, '{' with '}' and '['
//     with ']'; a mismatch is invalid, and so is nesting deeper than
//     maxScanDepth.
//   - A number or a literal (true, false, null) is a run of bytes up to the
//     next whitespace, structural byte or quote; its bytes are not checked.
//   - It does not allocate, copy or decode anything.
//
// So on invalid JSON a span it returns may hold anything: a caller trusts a
// span only where its bytes are validated later (the serializers' unmarshal
// checks a whole input before it decodes any of it), and takes "invalid" or
// "not plain" as "leave this to the plain path".

// maxScanDepth is the deepest nesting the scanner follows.
const maxScanDepth = 128

// scanStep is where a jsonScan stands after the bytes it was fed.
type scanStep int

const (
	scanMore    scanStep = iota // the value goes on past the bytes fed
	scanDone                    // the value ended within them
	scanInvalid                 // the next byte cannot belong to the value
)

// jsonScan follows one JSON value through consecutive chunks of its bytes.
// The zero jsonScan stands before the value's first byte.
type jsonScan struct {
	started  bool
	literal  bool // in a number or a literal
	inString bool
	escaped  bool // in a string, and the next byte is escaped
	depth    int  // brackets open
	// arrays holds a bit for each open bracket: set for '['.
	arrays [maxScanDepth / 64]uint64
}

// feed scans chunk, the next bytes of the value (the first chunk starting
// at its first byte), and returns how many of them belong to the value and
// the step after them: scanDone when the value ended within the first n
// bytes, scanInvalid when chunk[n] cannot belong to it, scanMore when all n
// (= len(chunk)) bytes belong to it and it goes on. A number or literal
// ends only at a byte after it: at the end of input, see endsAtEOF.
func (s *jsonScan) feed(chunk []byte) (int, scanStep) {
	i := 0
	if !s.started && len(chunk) > 0 {
		s.started = true
		switch c := chunk[0]; {
		case c == '"':
			s.inString, i = true, 1
		case c == '{' || c == '[':
		case endsLiteral(c):
			return 0, scanInvalid
		default:
			s.literal = true
		}
	}
	if s.literal {
		return feedLiteral(chunk)
	}
	for i < len(chunk) {
		if s.inString {
			var closed bool
			if i, closed = s.feedString(chunk, i); closed && s.depth == 0 {
				return i, scanDone
			}
			continue
		}
		switch c := chunk[i]; c {
		case '"':
			s.inString = true
		case '{', '[':
			if !s.push(c == '[') {
				return i, scanInvalid
			}
		case '}', ']':
			if !s.pop(c == ']') {
				return i, scanInvalid
			}
			if s.depth == 0 {
				return i + 1, scanDone
			}
		}
		i++
	}
	return i, scanMore
}

// endsAtEOF reports whether the value fed so far is complete if the input
// ends here: a number or literal that no byte has ended yet.
func (s *jsonScan) endsAtEOF() bool { return s.literal }

// feedLiteral returns how much of chunk continues a number or literal, and
// whether it ended in chunk.
func feedLiteral(chunk []byte) (int, scanStep) {
	for i, c := range chunk {
		if endsLiteral(c) {
			return i, scanDone
		}
	}
	return len(chunk), scanMore
}

// feedString scans string bytes from chunk[i] and returns the index after
// them and whether they closed the string (the index is then after the
// closing quote); otherwise they ran to the chunk's end.
func (s *jsonScan) feedString(chunk []byte, i int) (int, bool) {
	if s.escaped {
		s.escaped = false
		i++
	}
	for {
		quote := bytes.IndexByte(chunk[i:], '"')
		if quote < 0 {
			s.escaped = oddBackslashes(chunk[i:])
			return len(chunk), false
		}
		quote += i
		if !oddBackslashes(chunk[i:quote]) {
			s.inString = false
			return quote + 1, true
		}
		i = quote + 1
	}
}

// oddBackslashes reports whether b ends with an odd run of backslashes.
func oddBackslashes(b []byte) bool {
	n := 0
	for n < len(b) && b[len(b)-1-n] == '\\' {
		n++
	}
	return n%2 == 1
}

// push opens a bracket; false beyond maxScanDepth.
func (s *jsonScan) push(array bool) bool {
	if s.depth == maxScanDepth {
		return false
	}
	word, bit := s.depth/64, uint(s.depth%64)
	s.arrays[word] &^= 1 << bit
	if array {
		s.arrays[word] |= 1 << bit
	}
	s.depth++
	return true
}

// pop closes a bracket; false when none is open or the open one is of the
// other kind.
func (s *jsonScan) pop(array bool) bool {
	if s.depth == 0 {
		return false
	}
	s.depth--
	word, bit := s.depth/64, uint(s.depth%64)
	return (s.arrays[word]>>bit&1 == 1) == array
}

// skipValue returns the index after the value that starts at data[i] (no
// whitespace before it) and data ends; false when no value ends there.
func skipValue(data []byte, i int) (int, bool) {
	var s jsonScan
	n, step := s.feed(data[i:])
	return i + n, step == scanDone || step == scanMore && s.endsAtEOF()
}

// scanSequence walks the object or array that opens with open at data[i]
// and closes with end: item reads one member or element starting at its
// index (after whitespace) and returns the index after it. It returns the
// index after the closing byte; false on a structural error or a false
// from item.
func scanSequence(data []byte, i int, open, end byte, item func(at int) (int, bool)) (int, bool) {
	if i >= len(data) || data[i] != open {
		return 0, false
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == end {
		return i + 1, true
	}
	for {
		next, ok := item(i)
		if !ok {
			return 0, false
		}
		i = skipSpace(data, next)
		switch {
		case i >= len(data):
			return 0, false
		case data[i] == ',':
			i = skipSpace(data, i+1)
		case data[i] == end:
			return i + 1, true
		default:
			return 0, false
		}
	}
}

// scanObject walks the object at data[i]: for each member, in order, it
// calls value with the member's key (plain: see plainString) and the index
// of its value, which value reads and returns the index after. False for a
// structural error, a key that is not plain, or a false from value.
func scanObject(data []byte, i int, value func(key []byte, at int) (int, bool)) (int, bool) {
	return scanSequence(data, i, '{', '}', func(at int) (int, bool) {
		key, next, ok := plainString(data, at)
		if !ok {
			return 0, false
		}
		colon := skipSpace(data, next)
		if colon >= len(data) || data[colon] != ':' {
			return 0, false
		}
		return value(key, skipSpace(data, colon+1))
	})
}

// scanArray walks the array at data[i], calling element with the span of
// each element in order; false for a structural error or a false from
// element.
func scanArray(data []byte, i int, element func(from, to int) bool) (int, bool) {
	return scanSequence(data, i, '[', ']', func(at int) (int, bool) {
		to, ok := skipValue(data, at)
		return to, ok && element(at, to)
	})
}

// scanWholeObject is scanObject over all of data: an object with nothing
// but whitespace around it.
func scanWholeObject(data []byte, value func(key []byte, at int) (int, bool)) bool {
	end, ok := scanObject(data, skipSpace(data, 0), value)
	return ok && skipSpace(data, end) == len(data)
}

// topLevelMember is one member of the outermost object: the key's bytes
// (between the quotes, plain) and the raw value data[from:to].
type topLevelMember struct {
	key      []byte
	from, to int
}

// scanTopLevel calls visit for each member of the object data holds (with
// nothing but whitespace around it), in order, and reports false when data
// is not such an object of plain keys, or visit returns false. It checks
// the top-level structure (braces, colons, commas, keys) and, per the
// invariants above, not the values it skips.
func scanTopLevel(data []byte, visit func(m topLevelMember) bool) bool {
	return scanWholeObject(data, func(key []byte, from int) (int, bool) {
		to, ok := skipValue(data, from)
		return to, ok && visit(topLevelMember{key: key, from: from, to: to})
	})
}

// plainString reads a string at data[i] whose bytes are all printable
// ASCII without escapes, and returns its content and the index after its
// closing quote; false for any other string or no string.
func plainString(data []byte, i int) ([]byte, int, bool) {
	if i >= len(data) || data[i] != '"' {
		return nil, 0, false
	}
	for j := i + 1; j < len(data); j++ {
		switch c := data[j]; {
		case c == '"':
			return data[i+1 : j], j + 1, true
		case c == '\\' || c < 0x20 || c >= 0x7f:
			return nil, 0, false
		}
	}
	return nil, 0, false
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func skipSpace(data []byte, i int) int {
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	return i
}

// isSpace reports whether c is JSON whitespace.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// endsLiteral reports whether c cannot belong to a number or literal:
// whitespace, a structural byte or a quote.
func endsLiteral(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', ',', ':', '{', '}', '[', ']', '"':
		return true
	}
	return false
}

package fastlw

import "bytes"

// A bounded, non-validating scanner of a JSON object's top level. It finds
// the members of the outermost object (key and the span of the raw value)
// without decoding the values; nested values are skipped by matching
// brackets outside strings. It validates the top-level structure (braces,
// colons, commas, keys, nothing but whitespace after the object) but not
// the skipped values: on valid JSON the spans it returns are exactly the
// values a JSON parser sees; on invalid JSON they may be anything, so a
// caller must only trust them where the bytes are validated later (the
// serializer's unmarshal checks the whole input before it decodes).
// "ok" false means "unusual, ask the plain path": not an object, a key
// with an escape or a byte outside printable ASCII, a structural error.

// topLevelMember is one member of the outermost object: the key's bytes
// (between the quotes, escape-free) and the raw value data[from:to].
type topLevelMember struct {
	key      []byte
	from, to int
}

// scanTopLevel calls visit for each member of the object data holds, in
// order, and reports false when data is not a plain object (see above) or
// visit returns false.
func scanTopLevel(data []byte, visit func(m topLevelMember) bool) bool {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return skipSpace(data, i+1) == len(data)
	}
	for {
		m, next, ok := scanMember(data, i)
		if !ok || !visit(m) {
			return false
		}
		i = skipSpace(data, next)
		if i >= len(data) {
			return false
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return skipSpace(data, i+1) == len(data)
		default:
			return false
		}
	}
}

// scanMember reads `"key" : value` at i and returns the member and the
// index after the value.
func scanMember(data []byte, i int) (topLevelMember, int, bool) {
	key, next, ok := plainString(data, i)
	if !ok {
		return topLevelMember{}, 0, false
	}
	i = skipSpace(data, next)
	if i >= len(data) || data[i] != ':' {
		return topLevelMember{}, 0, false
	}
	from := skipSpace(data, i+1)
	to, ok := skipValue(data, from)
	if !ok {
		return topLevelMember{}, 0, false
	}
	return topLevelMember{key: key, from: from, to: to}, to, true
}

// plainString reads a string at i whose bytes are all printable ASCII
// without escapes, and returns its content and the index after its closing
// quote; false for any other string or no string.
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

// skipValue returns the index after the value that starts at i, skipping
// strings by their quotes and escapes and arrays and objects by their
// brackets; false when no value could end there (an empty value, an
// unterminated string or bracket).
func skipValue(data []byte, i int) (int, bool) {
	if i >= len(data) {
		return 0, false
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		return skipNested(data, i)
	}
	j := i
	for j < len(data) && !isDelimiter(data[j]) {
		j++
	}
	return j, j > i
}

// skipString returns the index after the string that starts at i: the
// first quote after it preceded by an even run of backslashes (in valid
// JSON a backslash escapes exactly the next byte, and no escape's other
// bytes are quotes or backslashes).
func skipString(data []byte, i int) (int, bool) {
	for j := i + 1; ; {
		k := bytes.IndexByte(data[j:], '"')
		if k < 0 {
			return 0, false
		}
		quote := j + k
		run := 0
		for quote-1-run > i && data[quote-1-run] == '\\' {
			run++
		}
		if run%2 == 0 {
			return quote + 1, true
		}
		j = quote + 1
	}
}

// skipNested returns the index after the array or object that starts at i
// (brackets counted outside strings, not matched by kind).
func skipNested(data []byte, i int) (int, bool) {
	depth := 0
	for j := i; j < len(data); j++ {
		switch data[j] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1, true
			}
		case '"':
			end, ok := skipString(data, j)
			if !ok {
				return 0, false
			}
			j = end - 1
		}
	}
	return 0, false
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

// isDelimiter reports whether c ends a number or a literal.
func isDelimiter(c byte) bool { return isSpace(c) || c == ',' || c == '}' || c == ']' }

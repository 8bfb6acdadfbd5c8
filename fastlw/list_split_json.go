package fastlw

import "bytes"

// jsonList is a JSON list page cut at its items array. Items are
// contiguous in the body, so a chunk of consecutive items is one slice of
// it, separators included.
type jsonList struct {
	body []byte
	// itemsFrom and itemsTo delimit the items array value, brackets included.
	itemsFrom, itemsTo int
	// starts and ends delimit each item's value.
	starts, ends []int
	// head opens a chunk: the page's kind and apiVersion, then the items key.
	head []byte
}

// splitJSONList cuts a JSON object with a non-empty "items" array. It
// checks the structure only (strings, nesting, separators); the decoder
// checks the values. It reports false for anything else: no object, no or
// empty items, a duplicate or escaped top-level key, trailing bytes.
func splitJSONList(body []byte) (*jsonList, bool) {
	s := jsonScanner{b: body}
	page := &jsonList{body: body}
	var kind, apiVersion []byte
	seen := map[string]bool{}
	if !s.open('{') {
		return nil, false
	}
	for more := !s.close('}'); more; more = !s.close('}') {
		if len(seen) > 0 && !s.open(',') {
			return nil, false
		}
		key, ok := s.key()
		if !ok || seen[key] {
			return nil, false
		}
		seen[key] = true
		from := s.i
		switch {
		case key == "items":
			ok = s.items(page)
		default:
			ok = s.value()
		}
		if !ok {
			return nil, false
		}
		switch key {
		case "kind":
			kind = body[from:s.i]
		case "apiVersion":
			apiVersion = body[from:s.i]
		}
	}
	if s.skipSpace(); s.i != len(body) || len(page.starts) == 0 {
		return nil, false
	}
	page.head = jsonChunkHead(kind, apiVersion)
	return page, true
}

// jsonChunkHead returns the opening of a chunk list: the page's kind and
// apiVersion values (when present) and the items key.
func jsonChunkHead(kind, apiVersion []byte) []byte {
	head := []byte("{")
	if kind != nil {
		head = append(append(append(head, `"kind":`...), kind...), ',')
	}
	if apiVersion != nil {
		head = append(append(append(head, `"apiVersion":`...), apiVersion...), ',')
	}
	return append(head, `"items":[`...)
}

func (p *jsonList) len() int { return len(p.starts) }

// skeleton returns the body with an empty items array.
func (p *jsonList) skeleton() []byte {
	out := make([]byte, 0, p.itemsFrom+2+len(p.body)-p.itemsTo)
	out = append(out, p.body[:p.itemsFrom]...)
	out = append(out, "[]"...)
	return append(out, p.body[p.itemsTo:]...)
}

// chunk returns {"kind":…,"apiVersion":…,"items":[items from..to-1]}.
func (p *jsonList) chunk(from, to int) []byte {
	run := p.body[p.starts[from]:p.ends[to-1]]
	out := make([]byte, 0, len(p.head)+len(run)+2)
	out = append(append(out, p.head...), run...)
	return append(out, "]}"...)
}

// jsonScanner walks the structure of a JSON text; i is the next byte.
type jsonScanner struct {
	b []byte
	i int
}

// skipSpace skips JSON whitespace.
func (s *jsonScanner) skipSpace() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

// open skips whitespace and then c, reporting whether c was there.
func (s *jsonScanner) open(c byte) bool {
	s.skipSpace()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// close is open for a closing bracket.
func (s *jsonScanner) close(c byte) bool { return s.open(c) }

// key reads `"name":` and positions after the colon and whitespace; an
// escaped name is refused (it could spell a key in another way).
func (s *jsonScanner) key() (string, bool) {
	s.skipSpace()
	from := s.i
	if !s.str() {
		return "", false
	}
	name := s.b[from+1 : s.i-1]
	if bytes.IndexByte(name, '\\') >= 0 || !s.open(':') {
		return "", false
	}
	s.skipSpace()
	return string(name), true
}

// str skips a string starting at i.
func (s *jsonScanner) str() bool {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return false
	}
	for s.i++; s.i < len(s.b); s.i++ {
		switch c := s.b[s.i]; {
		case c == '\\':
			s.i++
		case c == '"':
			s.i++
			return true
		case c < 0x20:
			return false
		}
	}
	return false
}

// value skips one value starting at i.
func (s *jsonScanner) value() bool {
	if s.i >= len(s.b) {
		return false
	}
	switch s.b[s.i] {
	case '"':
		return s.str()
	case '{', '[':
		return s.nested()
	}
	from := s.i
	for s.i < len(s.b) && bytes.IndexByte([]byte(",:]} \t\r\n{[\""), s.b[s.i]) < 0 {
		s.i++
	}
	return s.i > from
}

// nested skips an object or array starting at i, brackets matched by kind.
func (s *jsonScanner) nested() bool {
	var stack []byte
	for s.i < len(s.b) {
		switch c := s.b[s.i]; c {
		case '"':
			if !s.str() {
				return false
			}
			continue
		case '{', '[':
			stack = append(stack, c+2) // '{'+2 == '}', '['+2 == ']'
		case '}', ']':
			if len(stack) == 0 || stack[len(stack)-1] != c {
				return false
			}
			stack = stack[:len(stack)-1]
		}
		s.i++
		if len(stack) == 0 {
			return true
		}
	}
	return false
}

// items reads the items array into page: each element's range, separated
// by commas.
func (s *jsonScanner) items(page *jsonList) bool {
	page.itemsFrom = s.i
	if !s.open('[') {
		return false
	}
	for more := !s.close(']'); more; more = !s.close(']') {
		if len(page.starts) > 0 && !s.open(',') {
			return false
		}
		s.skipSpace()
		from := s.i
		if !s.value() {
			return false
		}
		page.starts, page.ends = append(page.starts, from), append(page.ends, s.i)
	}
	page.itemsTo = s.i
	return true
}

package fastlw

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

// splitJSONList cuts a JSON object with a non-empty "items" array with the
// scanner of json_scan.go: it checks the structure only (nesting,
// separators, plain keys); the decoder checks the values (the skeleton and
// every chunk are decoded, which validates the whole page). It reports
// false for anything else: no object, no or empty items, a duplicate or
// non-plain top-level key, trailing bytes.
func splitJSONList(body []byte) (*jsonList, bool) {
	page := &jsonList{body: body}
	var kind, apiVersion []byte
	seen := map[string]bool{}
	whole := scanWholeObject(body, func(key []byte, from int) (int, bool) {
		if seen[string(key)] {
			return 0, false
		}
		seen[string(key)] = true
		if string(key) == "items" {
			return page.scanItems(from)
		}
		to, ok := skipValue(body, from)
		switch string(key) {
		case "kind":
			kind = body[from:to]
		case "apiVersion":
			apiVersion = body[from:to]
		}
		return to, ok
	})
	if !whole || len(page.starts) == 0 {
		return nil, false
	}
	page.head = jsonChunkHead(kind, apiVersion)
	return page, true
}

// scanItems records the items array that starts at body[from] and each of
// its elements, and returns the index after it.
func (p *jsonList) scanItems(from int) (int, bool) {
	to, ok := scanArray(p.body, from, func(start, end int) bool {
		p.starts, p.ends = append(p.starts, start), append(p.ends, end)
		return true
	})
	p.itemsFrom, p.itemsTo = from, to
	return to, ok
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

// appendChunk appends {"kind":…,"apiVersion":…,"items":[items from..to-1]}
// to dst.
func (p *jsonList) appendChunk(dst []byte, from, to int) []byte {
	return appendJSONChunk(dst, p.head, p.body[p.starts[from]:p.ends[to-1]])
}

// appendJSONChunk appends to dst the list that head (jsonChunkHead) opens,
// holding items: the bytes of consecutive items of a page, separators
// included.
func appendJSONChunk(dst, head, items []byte) []byte {
	return append(append(append(dst, head...), items...), "]}"...)
}

package fastlw

import "bytes"

// jsonListCut cuts a JSON list page as its bytes arrive (feed, then end):
// it keeps the skeleton (every byte of the page but those inside the items
// array) and hands each item's bytes, in page order, to its item callback.
// It follows the page with the scanner of json_scan.go and takes exactly
// the pages splitJSONList cuts, in the order an API server writes them:
// one object of plain, distinct keys whose kind and apiVersion (when it
// has them) come before a non-empty items array. At anything else it gives
// up (failed), and the page is left to the whole-body path, which decides
// what it is.
//
// Between values (keys, colons, commas, whitespace) a step is taken only
// when all its bytes have arrived, else it is tried again on more, from
// where the last try stopped (whitespace is consumed as it arrives, a
// key's closing quote looked for in the new bytes only); a value is
// scanned incrementally (jsonScan): no byte is scanned twice but a key's.
// Not safe for concurrent use: one goroutine feeds it.
type jsonListCut struct {
	// window holds the bytes fed and not yet consumed, from window[at]
	// on; value and scanned are indexes into it. base is the offset in the
	// page of window[0].
	window []byte
	at     int
	base   int
	phase  listPhase
	// member is the key of the member whose value is scanned.
	member string
	// scan follows the value (a member's or an item) that starts at
	// window[value], fed up to window[scanned].
	scan           jsonScan
	value, scanned int
	seen           map[string]bool // the page's keys so far
	// kind and apiVersion are copies of the page's values, nil until met.
	kind, apiVersion []byte
	skeleton         []byte
	failed           bool
	// items is called with each item's bytes, valid only during the call,
	// and their offset in the page, and beforeItems once, when the items array opens (with the page's
	// kind and apiVersion); either returning false gives up the cut.
	items       func(item []byte, at int) bool
	beforeItems func() bool
}

// listPhase is where a jsonListCut stands in the page.
type listPhase uint8

const (
	beforePage  listPhase = iota // whitespace, then the page's '{'
	beforeKey                    // whitespace, then a member's key
	beforeColon                  // whitespace, then the colon after the key
	inMember                     // a member's value; for items, its '['
	afterMember                  // whitespace, then ',' or the page's '}'
	beforeItem                   // whitespace, then an item
	inItem                       // an item's value
	afterItem                    // whitespace, then ',' or the items' ']'
	afterPage                    // whitespace only
)

// maxListGap bounds the bytes a step between values may wait for (a key,
// say): a page whose gap runs longer is left to the whole-body path.
const maxListGap = 1 << 20

// feed takes the page's next bytes.
func (c *jsonListCut) feed(p []byte) {
	if c.failed {
		return
	}
	c.compact()
	c.window = append(c.window, p...)
	c.consume(false)
}

// end takes the end of the page and reports whether it was cut whole,
// items included (an items array is never empty: see step).
func (c *jsonListCut) end() bool {
	if !c.failed {
		c.consume(true)
	}
	ok := !c.failed && c.phase == afterPage && c.seen["items"]
	c.window = nil
	return ok
}

// fail gives the cut up and lets its buffers go.
func (c *jsonListCut) fail() {
	c.failed = true
	c.window, c.skeleton = nil, nil
}

// compact drops the consumed bytes from the window once they are at least
// half of it, so that a value arriving in many pieces is not copied once
// per piece.
func (c *jsonListCut) compact() {
	if c.at == 0 || 2*c.at < len(c.window) {
		return
	}
	n := copy(c.window, c.window[c.at:])
	c.window = c.window[:n]
	c.value -= c.at
	c.scanned -= c.at
	c.base += c.at
	c.at = 0
}

// consume takes steps while they complete; eof says no byte comes after
// the window.
func (c *jsonListCut) consume(eof bool) {
	for !c.failed {
		done, ok := c.step(eof)
		switch {
		case !ok:
			c.fail()
		case !done:
			if eof && c.phase != afterPage || c.phase != inMember && c.phase != inItem && len(c.window)-c.at > maxListGap {
				c.fail()
			}
			return
		}
	}
}

// step takes the step of the current phase: done when it completed, ok
// false when the page is not one this cut takes.
func (c *jsonListCut) step(eof bool) (done, ok bool) {
	i := skipSpace(c.window, c.at)
	if c.phase != inMember && c.phase != inItem {
		if c.phase == beforeItem || c.phase == afterItem {
			c.at = i // whitespace between items is not the skeleton's
		} else {
			c.keep(i)
		}
		if i == len(c.window) {
			return false, true
		}
	}
	switch c.phase {
	case beforePage:
		c.scanned = 0
		return c.expect('{', beforeKey)
	case beforeKey:
		return c.key()
	case beforeColon:
		c.value = -1
		return c.expect(':', inMember)
	case inMember:
		return c.memberValue(eof)
	case afterMember:
		return c.separator('}', afterPage)
	case beforeItem:
		c.value, c.scanned, c.scan = c.at, c.at, jsonScan{}
		c.phase = inItem
		return true, true
	case inItem:
		return c.item()
	case afterItem:
		return c.separator(']', afterMember)
	default: // afterPage: a byte after the page
		return false, false
	}
}

// keep adds the window's bytes up to i to the skeleton and consumes them.
func (c *jsonListCut) keep(i int) {
	c.skeleton = append(c.skeleton, c.window[c.at:i]...)
	c.at = i
}

// expect consumes the byte b, which must come next, and moves to phase.
func (c *jsonListCut) expect(b byte, phase listPhase) (bool, bool) {
	if c.window[c.at] != b {
		return false, false
	}
	c.keep(c.at + 1)
	c.phase = phase
	return true, true
}

// separator consumes the ',' that leads to the next member or item, or
// the closing byte, which moves to closed. In the items, neither is the
// skeleton's but the closing ']'.
func (c *jsonListCut) separator(closing byte, closed listPhase) (bool, bool) {
	inItems := c.phase == afterItem
	switch c.window[c.at] {
	case ',':
		c.at++
		if !inItems {
			c.skeleton = append(c.skeleton, ',')
			c.phase, c.scanned = beforeKey, 0
		} else {
			c.phase = beforeItem
		}
		return true, true
	case closing:
		c.keep(c.at + 1)
		c.phase = closed
		return true, true
	}
	return false, false
}

// key consumes a member's plain key, once it arrived whole; the page's
// first key cannot be missing ('{}' has no items) and no key can repeat.
// While the key is still arriving, scanned marks how far its closing
// quote was looked for, so that no byte of it is looked at twice.
func (c *jsonListCut) key() (bool, bool) {
	w := c.window
	if w[c.at] != '"' {
		return false, false
	}
	if bytes.IndexByte(w[max(c.at+1, c.scanned):], '"') < 0 {
		c.scanned = len(w)
		return false, true
	}
	key, next, ok := plainString(w, c.at)
	if !ok || c.seen[string(key)] {
		return false, false
	}
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	c.seen[string(key)] = true
	c.member = string(key)
	c.keep(next)
	c.phase = beforeColon
	return true, true
}

// memberValue scans a member's value: for items, it consumes the array's
// '[' (once kind and apiVersion are known, if they come at all, and
// beforeItems agrees); any other value is kept whole in the skeleton once
// it ended, kind's and apiVersion's copied.
func (c *jsonListCut) memberValue(eof bool) (bool, bool) {
	if c.value < 0 {
		i := skipSpace(c.window, c.at)
		c.keep(i)
		if i == len(c.window) {
			return false, true
		}
		if c.member == "items" {
			if c.window[i] != '[' || !c.beforeItems() {
				return false, false
			}
			c.keep(i + 1)
			c.phase = beforeItem
			return true, true
		}
		c.value, c.scanned, c.scan = i, i, jsonScan{}
	}
	end, done, ok := c.scanValue(eof)
	if !done || !ok {
		return done, ok
	}
	switch c.member {
	case "kind":
		c.kind = bytes.Clone(c.window[c.value:end])
	case "apiVersion":
		c.apiVersion = bytes.Clone(c.window[c.value:end])
	}
	c.keep(end)
	c.phase = afterMember
	return true, true
}

// item scans an item and hands its bytes and offset to items once it
// ended.
func (c *jsonListCut) item() (bool, bool) {
	end, done, ok := c.scanValue(false)
	if !done || !ok {
		return done, ok
	}
	if !c.items(c.window[c.value:end], c.base+c.value) {
		return false, false
	}
	c.at = end
	c.phase = afterItem
	return true, true
}

// scanValue feeds the window's new bytes to the scan of the value at
// window[value] and returns the index after the value once it ended
// (done); ok false when the value is invalid. A number or literal ends
// at the end of the page (eof).
func (c *jsonListCut) scanValue(eof bool) (end int, done, ok bool) {
	n, step := c.scan.feed(c.window[c.scanned:])
	c.scanned += n
	switch {
	case step == scanDone:
		return c.scanned, true, true
	case step == scanInvalid:
		return 0, false, false
	case eof && c.scan.endsAtEOF():
		return c.scanned, true, true
	}
	return 0, false, true
}

package fastlw

import (
	"bytes"

	"google.golang.org/protobuf/encoding/protowire"
)

// protobufMagic opens every Kubernetes protobuf object: "k8s" and a zero.
var protobufMagic = []byte{0x6b, 0x38, 0x73, 0x00}

// The field numbers of the envelope (runtime.Unknown) and of a list.
const (
	envelopeRawField             = 2 // Unknown.raw: the encoded object
	envelopeContentEncodingField = 3 // Unknown.contentEncoding: must be empty
	listItemsField               = 2 // <Kind>List.items
)

// protobufList is a protobuf list page cut at its items: the envelope's
// other fields, and the list's fields with the items (consecutive records
// of field 2) cut out.
type protobufList struct {
	// envelope holds the envelope's records but raw (TypeMeta, contentType).
	envelope []byte
	// raw is the list message; itemsFrom and itemsTo delimit its items.
	raw                []byte
	itemsFrom, itemsTo int
	// ends holds each item record's end in raw; an item starts where the
	// previous one ends (the first at itemsFrom).
	ends []int
}

// splitProtobufList cuts an envelope holding a list whose items are one run
// of field-2 records. It reports false for anything else: no magic, a
// malformed record, a content encoding, items interleaved with other fields.
func splitProtobufList(body []byte) (*protobufList, bool) {
	if !bytes.HasPrefix(body, protobufMagic) {
		return nil, false
	}
	page := &protobufList{}
	found := false
	for rest := body[len(protobufMagic):]; len(rest) > 0; {
		num, typ, value, n := consumeRecord(rest)
		if n < 0 {
			return nil, false
		}
		switch {
		case num == envelopeRawField && typ == protowire.BytesType && !found:
			page.raw, found = value, true
		case num == envelopeContentEncodingField && len(value) > 0:
			return nil, false
		default:
			page.envelope = append(page.envelope, rest[:n]...)
		}
		rest = rest[n:]
	}
	if !found || !page.findItems() {
		return nil, false
	}
	return page, true
}

// findItems records the run of item records in raw; false when there is
// none, a record is malformed, or items are interleaved with other fields.
func (p *protobufList) findItems() bool {
	p.itemsFrom = -1
	for at := 0; at < len(p.raw); {
		num, typ, _, n := consumeRecord(p.raw[at:])
		if n < 0 {
			return false
		}
		if num == listItemsField && typ == protowire.BytesType {
			switch {
			case p.itemsFrom < 0:
				p.itemsFrom = at
			case p.ends[len(p.ends)-1] != at:
				return false
			}
			p.ends = append(p.ends, at+n)
		}
		at += n
	}
	if len(p.ends) == 0 {
		return false
	}
	p.itemsTo = p.ends[len(p.ends)-1]
	return true
}

// consumeRecord reads one record: its field number, wire type, the value of
// a length-delimited record, and the record's length (negative when
// malformed).
func consumeRecord(b []byte) (protowire.Number, protowire.Type, []byte, int) {
	num, typ, n := protowire.ConsumeTag(b)
	if n < 0 {
		return 0, 0, nil, n
	}
	m := protowire.ConsumeFieldValue(num, typ, b[n:])
	if m < 0 {
		return 0, 0, nil, m
	}
	var value []byte
	if typ == protowire.BytesType {
		value, _ = protowire.ConsumeBytes(b[n:])
	}
	return num, typ, value, n + m
}

func (p *protobufList) len() int { return len(p.ends) }

// skeleton returns the envelope around the list without its items.
func (p *protobufList) skeleton() []byte {
	raw := make([]byte, 0, len(p.raw)-(p.itemsTo-p.itemsFrom))
	raw = append(append(raw, p.raw[:p.itemsFrom]...), p.raw[p.itemsTo:]...)
	return p.wrap(raw)
}

// appendChunk appends the envelope around a list holding items [from, to)
// to dst.
func (p *protobufList) appendChunk(dst []byte, from, to int) []byte {
	start := p.itemsFrom
	if from > 0 {
		start = p.ends[from-1]
	}
	return p.appendWrapped(dst, p.raw[start:p.ends[to-1]])
}

// wrap returns the magic, the envelope's other records, and raw as the
// envelope's raw field.
func (p *protobufList) wrap(raw []byte) []byte {
	return p.appendWrapped(make([]byte, 0, len(protobufMagic)+len(p.envelope)+len(raw)+16), raw)
}

// appendWrapped appends what wrap returns to dst.
func (p *protobufList) appendWrapped(dst, raw []byte) []byte {
	dst = append(append(dst, protobufMagic...), p.envelope...)
	dst = protowire.AppendTag(dst, envelopeRawField, protowire.BytesType)
	return protowire.AppendBytes(dst, raw)
}

package records

import (
	"hash/maphash"
	"strings"
	"testing"
)

func TestEverySplitOfAKeyHashesAsItsPlainRenderingDoes(t *testing.T) {
	seed := maphash.MakeSeed()
	long := strings.Repeat("n", 300)
	renderings := []string{
		"", "name", "ns/", "ns/a", "a/b/c/d", "/", "//", "/a", "a/", "a//b",
		"名前空間/ポッド", long + "/x", "x/" + long, long + "/" + long, long,
		strings.Repeat("q", 127) + "/", strings.Repeat("q", 63) + "/" + strings.Repeat("r", 64),
	}
	hashes := map[uint64]string{}
	for _, rendered := range renderings {
		want := Plain(rendered).Hash(seed)
		for _, k := range Splits(rendered) {
			if got := k.Hash(seed); got != want {
				t.Errorf("hash of %+v = %x, want %x (that of plain %q)", k, got, want, rendered)
			}
		}
		if other, ok := hashes[want]; ok {
			t.Errorf("%q and %q hash alike", rendered, other)
		}
		hashes[want] = rendered
	}
}

func TestRecordKeysAreEqualExactlyWhenTheirRenderingsAre(t *testing.T) {
	keys := []Key{
		Plain(""), Plain("a"), Plain("a/b"), Plain("a/b/c"), Plain("ab"), Plain("a/"), Plain("/a"),
		Named("a", "b"), Named("a", "b/c"), Named("a/b", "c"), Named("a", ""), Named("", "a/b"),
		Named("ab", "c"), Named("a", "bc"), Named("a/b", ""), Named("a", "/"), Named("a", "b/"),
	}
	for _, k := range keys {
		for _, o := range keys {
			if got, want := k.Equal(o), k.String() == o.String(); got != want {
				t.Errorf("%+v.Equal(%+v) = %v, want %v (renderings %q, %q)", k, o, got, want, k.String(), o.String())
			}
			if k.Len() != len(k.String()) {
				t.Errorf("%+v.Len() = %d, want %d", k, k.Len(), len(k.String()))
			}
		}
	}
}

func TestEverySplitHashesAlikeAtEveryLengthAroundTheHashBufferBoundaries(t *testing.T) {
	seed := maphash.MakeSeed()
	lengths := []int{0, 1, 2, 31, 32, 63, 64, 126, 127, 128, 129, 254, 255, 256, 257, 383, 384, 385}
	tests := []struct {
		name string
		// head is where the rendering's first '/' falls.
		head string
	}{
		{"first slash at the start", ""},
		{"a short first side", "ns"},
		{"a first side of 128 bytes", strings.Repeat("h", 128)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checked := 0
			for _, a := range lengths {
				for _, b := range lengths {
					// rendering = head/A/B with '/' inside B too, so the
					// streamed second half is cut in several places.
					rendering := tt.head + "/" + strings.Repeat("a", a) + "/" + strings.Repeat("b", b) + "/"
					want := Plain(rendering).Hash(seed)
					for _, k := range Splits(rendering) {
						if got := k.Hash(seed); got != want {
							t.Fatalf("hash of %d+%d+%d bytes split as (%d, %d) = %x, plain %x", len(tt.head), a, b, len(k.prefix), len(k.rest), got, want)
						}
						checked++
					}
				}
			}
			if checked < len(lengths)*len(lengths)*2 {
				t.Fatalf("only %d splits checked", checked)
			}
		})
	}
}

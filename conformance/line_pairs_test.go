package conformance

// linePair is line i of two transcripts, client-go's (want) and kcache's
// (got); a transcript that has run out reads "".
type linePair struct {
	i         int
	want, got string
}

// linePairs pairs want's and got's lines by index, up to the longer of the
// two.
func linePairs(want, got []string) []linePair {
	pairs := make([]linePair, max(len(want), len(got)))
	for i := range pairs {
		pairs[i].i = i
		if i < len(want) {
			pairs[i].want = want[i]
		}
		if i < len(got) {
			pairs[i].got = got[i]
		}
	}
	return pairs
}

// lineDiffs returns the pairs of linePairs(want, got) whose lines differ,
// in order.
func lineDiffs(want, got []string) []linePair {
	var diffs []linePair
	for _, p := range linePairs(want, got) {
		if p.want != p.got {
			diffs = append(diffs, p)
		}
	}
	return diffs
}

package conformance

// client-go drops a value given empty in the initial Indices when an Update
// removes a key from it (the set is empty after the removal, whether or not
// it held the key). kcache's shortcut must not skip that Update: an empty
// value set withdraws the trust (index.go load).

import "testing"

func TestAnUpdateOfAnObjectChangedInPlaceOntoAValueGivenEmptyDropsThatValueAsInClientGo(t *testing.T) {
	cases := []struct {
		name    string
		cfg     soleConfig
		later   []string // AddIndexers before the writes
		emptied string
	}{
		{name: "a registered index", cfg: soleConfig{indexers: []string{"s"},
			indices: map[string]map[string][]string{"s": {"empty": {}}}}, emptied: "empty"},
		{name: "a pending name AddIndexers took over", cfg: soleConfig{indexers: []string{"s"}, later: []string{"pend"},
			indices: map[string]map[string][]string{"pend": {"gone": {}}}}, later: []string{"pend"}, emptied: "gone"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := newSolePair(t, c.cfg)
			if len(c.later) > 0 {
				p.do("addIndexers", func(s *soleSide) {
					if err := s.addIndexers(c.later); err != nil {
						panic(err)
					}
				})
			}
			o1 := p.pod("ns", "a", map[string]string{"s": "a"}, "")
			o2 := p.pod("ns", "a", map[string]string{"s": "a"}, "")
			p.keys = []string{"ns/a"}
			p.do("add o0", func(s *soleSide) { s.add("ns/a", o1) })
			o1.Labels["s"] = c.emptied
			p.do("update o1", func(s *soleSide) { s.put("ns/a", o2) })
		})
	}
}

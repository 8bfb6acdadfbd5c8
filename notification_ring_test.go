package cache

import "testing"

func TestNotificationRingKeepsOrderAcrossGrowthAndWrapAround(t *testing.T) {
	cases := []struct {
		name     string
		pushes   int
		popEvery int // pop popSize items after every popEvery pushes
		popSize  int
	}{
		{name: "no pops", pushes: 300, popEvery: 0},
		{name: "wrap before growth", pushes: 500, popEvery: 10, popSize: 7},
		{name: "drain often", pushes: 200, popEvery: 3, popSize: 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var r notificationRing
			var got []int
			buf := make([]notification, 16)
			drain := func(limit int) {
				n := r.popInto(buf[:min(limit, len(buf))])
				for _, item := range buf[:n] {
					got = append(got, item.newObj.(int))
				}
			}
			for i := 0; i < tc.pushes; i++ {
				r.push(notification{kind: notifyAdd, newObj: i})
				if tc.popEvery > 0 && (i+1)%tc.popEvery == 0 {
					drain(tc.popSize)
				}
			}
			for r.len() > 0 {
				drain(len(buf))
			}
			if len(got) != tc.pushes {
				t.Fatalf("got %d items, want %d", len(got), tc.pushes)
			}
			for i, v := range got {
				if v != i {
					t.Fatalf("item %d is %d: order broken", i, v)
				}
			}
		})
	}
}

func TestNotificationRingClearsDeliveredSlots(t *testing.T) {
	var r notificationRing
	r.push(notification{newObj: "x"})
	buf := make([]notification, 1)
	r.popInto(buf)
	for i, slot := range r.buf {
		if slot.newObj != nil || slot.oldObj != nil {
			t.Fatalf("slot %d still references %v", i, slot.newObj)
		}
	}
}

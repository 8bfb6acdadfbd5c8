package cache

// queueItemsKeep is the number of keys up to which a queue (DeltaFIFO,
// FIFO) keeps its items map however empty it gets; only a map that held
// more is ever replaced.
const queueItemsKeep = 1024

// releaseDrainedItems gives back the memory of a drained burst. A Go map
// keeps the buckets of its largest size even once emptied, so peak is the
// most keys items has held (or was sized for). Once a map whose peak is
// above queueItemsKeep holds at most 1/8 of it, releaseDrainedItems returns
// a new map holding the remaining keys, sized for them (an empty one when
// none remain), with the peak starting again from there; otherwise it
// returns items and peak unchanged. The caller holds its queue's lock.
//
// NB: no thrashing: a move copies at most 1/8 of the keys the map held, and
// at least the other 7/8 were removed since it was made, so moves cost O(1)
// per removal; a queue that never holds more than queueItemsKeep keys never
// moves, so its steady state allocates nothing here.
func releaseDrainedItems[V any](items map[string]V, peak int) (map[string]V, int) {
	if peak <= queueItemsKeep || len(items) > peak/8 {
		return items, peak
	}
	kept := make(map[string]V, len(items))
	for key, item := range items {
		kept[key] = item
	}
	return kept, len(kept)
}

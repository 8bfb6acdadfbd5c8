package obstest

import "sync"

// Gate is an event handler that blocks in every notification until Open is
// called, so that its backlog builds up; it then counts like Counter.
type Gate struct {
	Counter
	// open is closed by Open.
	open chan struct{}
	// once guards closing open.
	once sync.Once
}

// NewGate returns a closed gate.
func NewGate() *Gate { return &Gate{open: make(chan struct{})} }

// Open lets every notification through from now on; it may be called more
// than once.
func (g *Gate) Open() { g.once.Do(func() { close(g.open) }) }

func (g *Gate) OnAdd(obj interface{}, initial bool) { <-g.open; g.Counter.OnAdd(obj, initial) }
func (g *Gate) OnUpdate(oldObj, newObj interface{}) { <-g.open; g.Counter.OnUpdate(oldObj, newObj) }
func (g *Gate) OnDelete(obj interface{})            { <-g.open; g.Counter.OnDelete(obj) }

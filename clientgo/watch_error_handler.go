package clientgo

import (
	"sync"

	clientgocache "k8s.io/client-go/tools/cache"

	kcache "github.com/kcache-go/cache"
)

// standInReflectors hands client-go watch-error handlers a client-go
// *Reflector for the kcache Reflector that failed. client-go's handlers
// (cache.DefaultWatchErrorHandler, controller-runtime's) only read the
// reflector's name and type description, so the stand-in is a client-go
// Reflector built with the same name and type description over an empty
// ListWatch and store; it is never run. One stand-in per kcache Reflector,
// made on its first error.
type standInReflectors struct {
	mu sync.Mutex
	// byReflector maps kcache reflectors to their stand-ins; guarded by mu.
	byReflector map[*kcache.Reflector]*clientgocache.Reflector
}

// standIn returns the stand-in for r (nil for a nil r).
func (s *standInReflectors) standIn(r *kcache.Reflector) *clientgocache.Reflector {
	if r == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if cg, ok := s.byReflector[r]; ok {
		return cg
	}
	if s.byReflector == nil {
		s.byReflector = map[*kcache.Reflector]*clientgocache.Reflector{}
	}
	cg := clientgocache.NewReflectorWithOptions(&clientgocache.ListWatch{}, nil,
		clientgocache.NewStore(clientgocache.MetaNamespaceKeyFunc),
		clientgocache.ReflectorOptions{Name: r.Name(), TypeDescription: r.TypeDescription()})
	s.byReflector[r] = cg
	return cg
}

package cache

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"
)

// informerNames is the process-wide registry of informer names in use.
var informerNames = struct {
	mu sync.Mutex
	// byName maps each registered name to its owner. Guarded by mu.
	byName map[string]*InformerName
}{byName: map[string]*InformerName{}}

// InformerName represents a named informer identity used for metrics. It is
// created once at startup and passed to the components of an informer; the
// name is unique within the process until Release is called.
//
// A nil *InformerName is valid: it has the empty name and reserves nothing.
type InformerName struct {
	// name is the registered name; it never changes.
	name string
	// active is true from registration until Release (or
	// ResetInformerNamesForTesting); every InformerNameAndResource made from
	// this name shares it.
	active atomic.Bool

	// mu guards resources.
	mu sync.Mutex
	// resources holds the GVRs already registered under this name.
	resources map[schema.GroupVersionResource]struct{}
}

// NewInformerName creates a new InformerName with the given name. The name
// must be non-empty and globally unique within the process; a name already
// registered is an error.
//
// The name stays taken until Release is called (at shutdown, say); only
// then may NewInformerName hand it out again.
func NewInformerName(name string) (*InformerName, error) {
	if name == "" {
		return nil, errors.New("informer name cannot be empty")
	}
	informerNames.mu.Lock()
	defer informerNames.mu.Unlock()
	if _, taken := informerNames.byName[name]; taken {
		return nil, fmt.Errorf("informer name %q is already registered", name)
	}
	n := &InformerName{name: name, resources: map[schema.GroupVersionResource]struct{}{}}
	n.active.Store(true)
	informerNames.byName[name] = n
	return n, nil
}

// Name returns the registered name, "" for a nil InformerName.
func (n *InformerName) Name() string {
	if n == nil {
		return ""
	}
	return n.name
}

// WithResource records gvr under n and returns the pair, for the
// Identifier options of the FIFOs and SharedIndexInformer.
//
// The first registration of a GVR under a live name is Reserved; a repeated
// one is not (and is logged), so that metrics are never published twice.
func (n *InformerName) WithResource(gvr schema.GroupVersionResource) InformerNameAndResource {
	if n == nil {
		return InformerNameAndResource{}
	}
	id := InformerNameAndResource{name: n.name, gvr: gvr, owner: n}
	n.mu.Lock()
	_, repeated := n.resources[gvr]
	n.resources[gvr] = struct{}{}
	n.mu.Unlock()
	if repeated {
		klog.Background().Error(nil, "Informer resource registered twice under one name; its metrics are not published",
			"informerName", n.name, "group", gvr.Group, "version", gvr.Version, "resource", gvr.Resource)
		return id
	}
	id.first = true
	return id
}

// Release marks this InformerName as no longer in use. Every
// InformerNameAndResource created from it reports Reserved() false from now
// on, and the name can be registered again by NewInformerName.
func (n *InformerName) Release() {
	if n == nil {
		return
	}
	n.active.Store(false)
	informerNames.mu.Lock()
	defer informerNames.mu.Unlock()
	if informerNames.byName[n.name] == n {
		delete(informerNames.byName, n.name)
	}
}

// ResetInformerNamesForTesting clears the informer name registry, releasing
// every name. This is exported for testing purposes only.
func ResetInformerNamesForTesting() {
	informerNames.mu.Lock()
	defer informerNames.mu.Unlock()
	for name, n := range informerNames.byName {
		n.active.Store(false)
		delete(informerNames.byName, name)
	}
}

// InformerNameAndResource represents a specific informer identity with both a
// name and a GVR. This is passed to FIFO and SharedIndexInformer for metrics.
// The zero value is a valid identity that publishes no metrics.
type InformerNameAndResource struct {
	// name is the informer name.
	name string
	// gvr is the resource registered under the name.
	gvr schema.GroupVersionResource
	// owner is the InformerName this identity came from; nil for the zero value.
	owner *InformerName
	// first is true when this was the first registration of gvr under owner.
	first bool
}

// Reserved returns true if this informer identity is reserved for metrics:
// it was the first registration of its GVR and its InformerName has not been
// released. It is a lock-free atomic load, fast enough for every queue
// operation.
func (n InformerNameAndResource) Reserved() bool {
	return n.first && n.owner.active.Load()
}

// Name returns the informer name.
func (n InformerNameAndResource) Name() string {
	return n.name
}

// GroupVersionResource returns the resource n was created with.
func (n InformerNameAndResource) GroupVersionResource() schema.GroupVersionResource {
	return n.gvr
}

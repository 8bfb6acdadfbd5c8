package reflectortest

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
)

// Recorder is a ReflectorStore (also a bookmark store and a resource version
// updater) that records every call in the trace and keeps the resulting
// content, keyed "namespace/name". mu guards content and transformCalls.
type Recorder struct {
	trace *Trace

	mu             sync.Mutex
	content        map[string]string
	transformCalls int
	// failReplaces is how many more Replace calls fail.
	failReplaces int
	// refuse is the name of the object Transform refuses ("" none).
	refuse string
}

// RefuseTransformOf makes Transform fail for the object called name.
func (s *Recorder) RefuseTransformOf(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuse = name
}

// NewRecorder returns an empty Recorder writing to trace.
func NewRecorder(trace *Trace) *Recorder {
	return &Recorder{trace: trace, content: map[string]string{}}
}

// FailNextReplaces makes the next n Replace calls record and then fail.
func (s *Recorder) FailNextReplaces(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failReplaces = n
}

func (s *Recorder) Add(obj interface{}) error {
	s.trace.Add("store.Add " + Describe(obj))
	return s.put(obj)
}

func (s *Recorder) Update(obj interface{}) error {
	s.trace.Add("store.Update " + Describe(obj))
	return s.put(obj)
}

func (s *Recorder) Delete(obj interface{}) error {
	s.trace.Add("store.Delete " + Describe(obj))
	key, err := keyOf(obj)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.content, key)
	return nil
}

// Replace records the items sorted (WatchList snapshots have no defined order).
func (s *Recorder) Replace(list []interface{}, rv string) error {
	return s.replace("store.Replace", list, rv)
}

// ReplaceTransformed is Replace for items that were already transformed;
// it is recorded as a Replace so traces compare with client-go's.
func (s *Recorder) ReplaceTransformed(list []interface{}, rv string) error {
	return s.replace("store.Replace", list, rv)
}

func (s *Recorder) replace(verb string, list []interface{}, rv string) error {
	described := make([]string, 0, len(list))
	next := make(map[string]string, len(list))
	var keyErr error
	for _, obj := range list {
		d := Describe(obj)
		described = append(described, d)
		key, err := keyOf(obj)
		if err != nil {
			keyErr = err
			continue
		}
		next[key] = d
	}
	sort.Strings(described)
	s.trace.Add(fmt.Sprintf("%s rv=%q [%s]", verb, rv, strings.Join(described, " ")))
	if keyErr != nil {
		return keyErr
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failReplaces > 0 {
		s.failReplaces--
		return errors.New("store refused the snapshot")
	}
	s.content = next
	return nil
}

func (s *Recorder) Resync() error {
	s.trace.Add("store.Resync")
	return nil
}

// Bookmark makes the Recorder a ReflectorBookmarkStore.
func (s *Recorder) Bookmark(rv string) error {
	s.trace.Add("store.Bookmark " + rv)
	return nil
}

// UpdateResourceVersion makes the Recorder a ResourceVersionUpdater.
func (s *Recorder) UpdateResourceVersion(rv string) {
	s.trace.Add("store.UpdateResourceVersion " + rv)
}

// Transform is the scenario transform: it strips labels, counting calls.
func (s *Recorder) Transform(obj interface{}) (interface{}, error) {
	s.mu.Lock()
	s.transformCalls++
	refuse := s.refuse
	s.mu.Unlock()
	if accessor, err := meta.Accessor(obj); err == nil {
		if refuse != "" && accessor.GetName() == refuse {
			return nil, fmt.Errorf("transform refused %s", refuse)
		}
		accessor.SetLabels(nil)
	}
	return obj, nil
}

// TransformCalls is how often Transform ran.
func (s *Recorder) TransformCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.transformCalls
}

// Content returns the stored objects, described and sorted.
func (s *Recorder) Content() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.content))
	for _, d := range s.content {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

func (s *Recorder) put(obj interface{}) error {
	key, err := keyOf(obj)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.content[key] = Describe(obj)
	return nil
}

// keyOf is namespace/name (name alone without a namespace).
func keyOf(obj interface{}) (string, error) {
	accessor, err := meta.Accessor(obj)
	if err != nil {
		return "", err
	}
	if ns := accessor.GetNamespace(); ns != "" {
		return ns + "/" + accessor.GetName(), nil
	}
	return accessor.GetName(), nil
}

package cache

import (
	"reflect"
	"testing"
)

// callLog records handler calls as short strings.
type callLog struct{ calls []string }

func (c *callLog) OnAdd(obj interface{}, initial bool) {
	if initial {
		c.calls = append(c.calls, "add-initial "+obj.(string))
		return
	}
	c.calls = append(c.calls, "add "+obj.(string))
}
func (c *callLog) OnUpdate(oldObj, newObj interface{}) {
	c.calls = append(c.calls, "update "+oldObj.(string)+"->"+newObj.(string))
}
func (c *callLog) OnDelete(obj interface{}) { c.calls = append(c.calls, "delete "+obj.(string)) }

func TestFilteringHandlerTurnsUpdatesAcrossTheFilterIntoAddsAndDeletes(t *testing.T) {
	keep := func(obj interface{}) bool { return obj.(string)[0] == 'y' }
	cases := []struct {
		name string
		do   func(h ResourceEventHandler)
		want []string
	}{
		{"add passing", func(h ResourceEventHandler) { h.OnAdd("yes", true) }, []string{"add-initial yes"}},
		{"add failing", func(h ResourceEventHandler) { h.OnAdd("no", false) }, nil},
		{"update both pass", func(h ResourceEventHandler) { h.OnUpdate("y1", "y2") }, []string{"update y1->y2"}},
		{"update starts passing", func(h ResourceEventHandler) { h.OnUpdate("n1", "y2") }, []string{"add y2"}},
		{"update stops passing", func(h ResourceEventHandler) { h.OnUpdate("y1", "n2") }, []string{"delete y1"}},
		{"update neither", func(h ResourceEventHandler) { h.OnUpdate("n1", "n2") }, nil},
		{"delete passing", func(h ResourceEventHandler) { h.OnDelete("yes") }, []string{"delete yes"}},
		{"delete failing", func(h ResourceEventHandler) { h.OnDelete("no") }, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			inner := &callLog{}
			tc.do(FilteringResourceEventHandler{FilterFunc: keep, Handler: inner})
			if !reflect.DeepEqual(inner.calls, tc.want) {
				t.Fatalf("calls %v, want %v", inner.calls, tc.want)
			}
		})
	}
}

func TestFuncsAdaptersCallOnlyTheFunctionsThatAreSet(t *testing.T) {
	var got []string
	funcs := ResourceEventHandlerFuncs{AddFunc: func(obj interface{}) { got = append(got, "add") }}
	detailed := ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj interface{}, initial bool) {
			got = append(got, "detailed-add", map[bool]string{true: "initial", false: "later"}[initial])
		},
		DeleteFunc: func(obj interface{}) { got = append(got, "detailed-delete") },
	}
	for _, h := range []ResourceEventHandler{funcs, detailed, ResourceEventHandlerFuncs{}, ResourceEventHandlerDetailedFuncs{}} {
		h.OnAdd("o", true)
		h.OnUpdate("o", "o")
		h.OnDelete("o")
	}
	want := []string{"add", "detailed-add", "initial", "detailed-delete"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("calls %v, want %v", got, want)
	}
}

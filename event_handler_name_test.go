package cache

import "testing"

func namedAddForTest(interface{}) {}

type valueHandlerForTest struct{}

func (valueHandlerForTest) OnAdd(interface{}, bool)           {}
func (valueHandlerForTest) OnUpdate(interface{}, interface{}) {}
func (valueHandlerForTest) OnDelete(interface{})              {}

type methodOwnerForTest struct{}

func (methodOwnerForTest) onDelete(interface{}) {}

func TestHandlerNameSaysWhereTheHandlerComesFrom(t *testing.T) {
	const pkg = "github.com/kcache-go/cache"
	cases := []struct {
		name    string
		handler ResourceEventHandler
		want    string
	}{
		{"empty funcs", ResourceEventHandlerFuncs{}, "cache.ResourceEventHandlerFuncs"},
		{"named function", ResourceEventHandlerFuncs{AddFunc: namedAddForTest}, pkg},
		{"pointer to funcs", &ResourceEventHandlerFuncs{AddFunc: namedAddForTest}, pkg},
		{"closure", ResourceEventHandlerFuncs{UpdateFunc: func(a, b interface{}) {}}, pkg + ".TestHandlerNameSaysWhereTheHandlerComesFrom"},
		{"method value", ResourceEventHandlerFuncs{DeleteFunc: methodOwnerForTest{}.onDelete}, pkg + ".methodOwnerForTest"},
		{"detailed funcs", ResourceEventHandlerDetailedFuncs{}, pkg + ".ResourceEventHandlerDetailedFuncs"},
		{"filtering", FilteringResourceEventHandler{}, pkg + ".FilteringResourceEventHandler"},
		{"value type", valueHandlerForTest{}, pkg + ".valueHandlerForTest"},
		{"pointer type", &valueHandlerForTest{}, pkg + ".valueHandlerForTest"},
		{"nil", nil, "<nil>"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := handlerName(tc.handler); got != tc.want {
				t.Fatalf("handlerName = %q, want %q", got, tc.want)
			}
		})
	}
}

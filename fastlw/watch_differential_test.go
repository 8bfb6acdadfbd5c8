package fastlw_test

import (
	"fmt"
	"reflect"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	cache "github.com/kcache-go/cache"
	"github.com/kcache-go/cache/fastlw"
)

// watchOutcome is what one Watch call gave: its error, or its events until
// the stream ended.
type watchOutcome struct {
	err    error
	events []watch.Event
}

// watchAll watches with options and reads until the result channel closes.
func watchAll(t *testing.T, lw cache.ListerWatcherWithContext, options metav1.ListOptions) watchOutcome {
	return watchAllIn(t.Context(), lw, options)
}

// scriptEvent is a watch step with an event.
func scriptEvent(eventType watch.EventType, obj runtime.Object) watchStep {
	return watchStep{event: &watch.Event{Type: eventType, Object: obj}}
}

// podAt returns a pod named name at resource version rv.
func podAt(name, rv string) *corev1.Pod {
	pod := newPod(name, rv)
	return &pod
}

// changes is a script of every kind of change and a bookmark.
func changes() []watchStep {
	return []watchStep{
		scriptEvent(watch.Added, podAt("pod-new", "101")),
		scriptEvent(watch.Modified, podAt("pod-000", "102")),
		scriptEvent(watch.Deleted, podAt("pod-001", "103")),
		scriptEvent(watch.Bookmark, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "104"}}),
		scriptEvent(watch.Modified, podAt("pod-002", "105")),
	}
}

// manyChanges is a script of n modifications.
func manyChanges(n int) []watchStep {
	steps := make([]watchStep, n)
	for i := range steps {
		steps[i] = scriptEvent(watch.Modified, podAt("pod-"+strconv.Itoa(i%7), strconv.Itoa(200+i)))
	}
	return steps
}

// badFrame is a frame of event type eventType around object bytes that
// decode (or not) as the test needs, in both media types.
func badFrame(eventType string, jsonObject []byte, protobufObject []byte) watchStep {
	frame := func(mediaType string, obj []byte) []byte {
		event := &metav1.WatchEvent{Type: eventType, Object: runtime.RawExtension{Raw: obj}}
		data, err := runtime.Encode(serializerInfo(mediaType).StreamSerializer.Serializer, event)
		if err != nil {
			panic(err)
		}
		return data
	}
	return watchStep{raw: map[string][]byte{
		runtime.ContentTypeJSON:     frame(runtime.ContentTypeJSON, jsonObject),
		runtime.ContentTypeProtobuf: frame(runtime.ContentTypeProtobuf, protobufObject),
	}}
}

// watchListOptions are the options of a Reflector's WatchList request.
var watchListOptions = metav1.ListOptions{ResourceVersion: "", ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
	AllowWatchBookmarks: true, SendInitialEvents: ptr.To(true)}

// watchCases are the watch scenarios both paths must agree on.
var watchCases = []struct {
	name    string
	formats []string
	sc      scenario
	options metav1.ListOptions
	cfg     fastlw.Config // Workers and MaxInFlight for fastlw
}{
	{name: "every kind of change and a bookmark, then the stream ends", sc: scenario{pods: newPods(3), watchSteps: changes()}},
	{name: "an ERROR event with 410 Expired", sc: scenario{watchSteps: append(changes()[:2],
		scriptEvent(watch.Error, &apierrors.NewResourceExpired("too old resource version: 5 (100)").ErrStatus))}},
	{name: "the connection drops mid-stream", sc: scenario{watchSteps: changes(), watchEnd: endCut}},
	{name: "a frame whose object does not decode", sc: scenario{watchSteps: append(changes()[:2],
		badFrame("ADDED", []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":5}}`), []byte("k8s\x00\x0a\x02garbage")))}},
	{name: "an event of an unknown type", sc: scenario{watchSteps: append(changes()[:1],
		badFrame("BOGUS", encode(runtime.ContentTypeJSON, podAt("x", "7")), encode(runtime.ContentTypeProtobuf, podAt("x", "7"))))}},
	{name: "an empty stream", sc: scenario{}},
	{name: "three hundred events through an in-flight bound of three", sc: scenario{watchSteps: manyChanges(300)},
		cfg: fastlw.Config{Workers: 2, MaxInFlight: 3}},
	{name: "a WatchList: the initial events and the bookmark ending them, then changes", sc: scenario{pods: newPods(9), watchSteps: changes()},
		options: watchListOptions},
	{name: "a too old resource version answers 410 when opening", sc: scenario{}, options: metav1.ListOptions{ResourceVersion: "1"}},
	{name: "a Table watch is rejected with 406", formats: []string{"table"}, sc: scenario{tableList: true}},
}

// TestWatchGivesThePlainPathsEventsAndErrors watches through
// cache.NewListWatchFromClient and through fastlw against the same fake
// apiserver and requires the same events (objects, order, resource
// versions, Error events' statuses) and the same errors.
func TestWatchGivesThePlainPathsEventsAndErrors(t *testing.T) {
	for _, tt := range watchCases {
		inEachFormat(t, tt.name, tt.formats, tt.sc, func(t *testing.T, client rest.Interface) {
			cfg := tt.cfg
			cfg.Client, cfg.Resource, cfg.Namespace = client, "pods", "ns"
			plain := watchAll(t, cache.NewListWatchFromClient(client, "pods", "ns", fields.Everything()), tt.options)
			requireSameWatch(t, plain, watchAll(t, fastlw.New(cfg), tt.options))
		})
	}
}

// requireSameWatch fails unless both outcomes are equal.
func requireSameWatch(t *testing.T, plain, fast watchOutcome) {
	t.Helper()
	if !sameError(plain.err, fast.err) {
		t.Fatalf("watch error differs:\nplain  %T %v\nfastlw %T %v", plain.err, plain.err, fast.err, fast.err)
	}
	if len(plain.events) != len(fast.events) {
		t.Fatalf("plain path gave %d events, fastlw %d:\nplain  %v\nfastlw %v", len(plain.events), len(fast.events), summary(plain.events), summary(fast.events))
	}
	for i := range plain.events {
		if !reflect.DeepEqual(plain.events[i], fast.events[i]) {
			t.Fatalf("event %d differs:\nplain  %v\nfastlw %v", i, summary(plain.events[i:i+1]), summary(fast.events[i:i+1]))
		}
	}
}

// summary renders events briefly: type, and the object's name and
// resource version, or a Status's message.
func summary(events []watch.Event) []string {
	out := make([]string, len(events))
	for i, event := range events {
		switch obj := event.Object.(type) {
		case *metav1.Status:
			out[i] = string(event.Type) + " status " + obj.Message
		case metav1.Object:
			out[i] = string(event.Type) + " " + obj.GetName() + "@" + obj.GetResourceVersion()
		default:
			out[i] = fmt.Sprintf("%s %T", event.Type, obj)
		}
	}
	return out
}

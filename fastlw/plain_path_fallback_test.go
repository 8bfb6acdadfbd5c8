package fastlw_test

import (
	"testing"

	"go.uber.org/goleak"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"

	cache "github.com/kcache-go/cache"
	"github.com/kcache-go/cache/fastlw"
)

// narrowedSerializer is the clientset serializer with some of its media
// types or stream serializers taken away.
type narrowedSerializer struct {
	runtime.NegotiatedSerializer
	infos []runtime.SerializerInfo
}

// SupportedMediaTypes returns the narrowed list.
func (s narrowedSerializer) SupportedMediaTypes() []runtime.SerializerInfo { return s.infos }

// narrowed returns the clientset serializer where keep decides, per media
// type, whether it stays (false drops it) and whether its stream serializer
// stays.
func narrowed(keep func(mediaType string) (stays, streams bool)) narrowedSerializer {
	s := narrowedSerializer{NegotiatedSerializer: fastlw.ClientsetSerializer()}
	for _, info := range s.NegotiatedSerializer.SupportedMediaTypes() {
		stays, streams := keep(info.MediaType)
		if !stays {
			continue
		}
		if !streams {
			info.StreamSerializer = nil
		}
		s.infos = append(s.infos, info)
	}
	return s
}

// TestWhatFastlwCannotDecodeGoesThroughThePlainPath gives fastlw a
// serializer that lacks what the response needs (the media type, or its
// stream serializer): lists and watches still give the plain path's pages
// and events, through Result.Get, Request.Watch, or Request.Watch handed
// the answer whose Content-Type fastlw cannot stream, so that every watch
// is one request, as on the plain path.
func TestWhatFastlwCannotDecodeGoesThroughThePlainPath(t *testing.T) {
	tests := []struct {
		name        string
		format      string
		keep        func(string) (bool, bool)
		wantWatches int // requests the fastlw watch makes
	}{
		{name: "no stream serializer at all: Request.Watch", format: "json",
			keep: func(string) (bool, bool) { return true, false }, wantWatches: 1},
		{name: "no JSON stream serializer, a JSON stream: handed to Request.Watch", format: "json",
			keep: func(m string) (bool, bool) { return true, m != runtime.ContentTypeJSON }, wantWatches: 1},
		{name: "no protobuf at all, a protobuf server: Result.Get and Request.Watch handed the answer", format: "protobuf",
			keep: func(m string) (bool, bool) { return m != runtime.ContentTypeProtobuf, true }, wantWatches: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			env := startEnv(scenario{pods: newPods(5), watchSteps: changes()})
			defer env.close()
			client := env.client(t, tt.format)
			plain := cache.NewListWatchFromClient(client, "pods", "ns", fields.Everything())
			fast := fastlw.NewFromClient(client, "pods", "ns", fields.Everything(), narrowed(tt.keep))
			options := metav1.ListOptions{Limit: 2}
			requireSameOutcomes(t, listAll(t.Context(), plain, options), listAll(t.Context(), fast, options))
			before := watchRequests(env.server)
			want := watchAll(t, plain, metav1.ListOptions{})
			between := watchRequests(env.server)
			requireSameWatch(t, want, watchAll(t, fast, metav1.ListOptions{}))
			if got := watchRequests(env.server) - between; between-before != 1 || got != tt.wantWatches {
				t.Fatalf("fastlw made %d watch requests, want %d", got, tt.wantWatches)
			}
		})
	}
}

// watchRequests counts the watch requests the server received.
func watchRequests(f *fakeAPIServer) int {
	n := 0
	for _, q := range f.requestLog() {
		if q.Get("watch") == "true" {
			n++
		}
	}
	return n
}

// TestListItemsDecodeInChunksOnTheWorkers counts the decodes of a list
// page. A protobuf page is decoded whole: the skeleton once, then one
// decode per chunk, where a chunk holds about a quarter of a worker's
// share, at most MaxInFlight/Workers items. A JSON page decodes as it
// arrives: the skeleton as it stands when the items open (for the list
// type), the whole skeleton at the end, and one decode per run of
// MaxInFlight/(2*Workers) items (at least one).
func TestListItemsDecodeInChunksOnTheWorkers(t *testing.T) {
	tests := []struct {
		name                       string
		pods, workers, maxInFlight int
		wantDecodes                map[string]int64
	}{
		{name: "seven pods, two workers: one pod a chunk, a run of seven", pods: 7, workers: 2,
			wantDecodes: map[string]int64{"protobuf": 1 + 7, "json": 2 + 1}},
		{name: "forty pods, two workers: five pods a chunk, runs of 32", pods: 40, workers: 2,
			wantDecodes: map[string]int64{"protobuf": 1 + 8, "json": 2 + 2}},
		{name: "forty pods, two workers, two in flight: one pod a chunk or a run", pods: 40, workers: 2, maxInFlight: 2,
			wantDecodes: map[string]int64{"protobuf": 1 + 40, "json": 2 + 40}},
		{name: "forty pods, one worker: ten pods a chunk, runs of 32", pods: 40, workers: 1,
			wantDecodes: map[string]int64{"protobuf": 1 + 4, "json": 2 + 2}},
	}
	for _, tt := range tests {
		for _, format := range []string{"json", "protobuf"} {
			t.Run(tt.name+"/"+format, func(t *testing.T) {
				defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
				env := startEnv(scenario{pods: newPods(tt.pods)})
				defer env.close()
				client := env.client(t, format)
				serializer := newObservedSerializer(nil)
				fast := fastlw.New(fastlw.Config{Client: client, Resource: "pods", Namespace: "ns",
					Serializer: serializer, Workers: tt.workers, MaxInFlight: tt.maxInFlight})
				plain := cache.NewListWatchFromClient(client, "pods", "ns", fields.Everything())
				requireSameOutcomes(t, listAll(t.Context(), plain, metav1.ListOptions{}), listAll(t.Context(), fast, metav1.ListOptions{}))
				if got := serializer.decodes.Load(); got != tt.wantDecodes[format] {
					t.Fatalf("fastlw decoded %d times, want %d", got, tt.wantDecodes[format])
				}
			})
		}
	}
}

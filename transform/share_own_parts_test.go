package transform

import (
	"encoding/json"
	"fmt"
	"runtime"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kcache-go/cache"
)

// ownPartsPodJSON is pod i as an API server returns it, every part
// ShareIdenticalPodParts shares its own (each holds i): the pods of an
// operator that configures every member apart.
func ownPartsPodJSON(i int) []byte {
	return fmt.Appendf(nil, `{"metadata":{"name":"member-%[1]d","namespace":"own","uid":"00000000-0000-4000-8000-%012[1]d"},
"spec":{"containers":[{"name":"member","image":"registry.example.com/member:1",
"command":["/bin/member","--id=%[1]d"],"args":["--peers=member-%[1]d.own","--data=/data/%[1]d"],
"ports":[{"containerPort":%[2]d,"protocol":"TCP"}],
"env":[{"name":"MEMBER_ID","value":"%[1]d"},{"name":"MEMBER_URL","value":"https://member-%[1]d.own:8443"}],
"resources":{"limits":{"cpu":"%[3]dm","memory":"%[4]dMi"},"requests":{"cpu":"%[5]dm","memory":"%[4]dMi"}},
"livenessProbe":{"httpGet":{"path":"/healthz/%[1]d","port":8443},"periodSeconds":10},
"securityContext":{"runAsUser":%[2]d}}],
"nodeSelector":{"member":"member-%[1]d"},
"tolerations":[{"key":"member-%[1]d","operator":"Exists","effect":"NoSchedule"}],
"volumes":[{"name":"data","persistentVolumeClaim":{"claimName":"data-member-%[1]d"}}]}}`,
		i, 10000+i, 1000+i, 2000+i, 500+i)
}

// retainedByOwnPartsPods decodes n pods of ownPartsPodJSON, applies
// transform to each and returns the live heap they then keep (the tables'
// entries included), per pod.
func retainedByOwnPartsPods(n int, transform cache.TransformFunc) float64 {
	data := make([][]byte, n)
	for i := range data {
		data[i] = ownPartsPodJSON(i)
	}
	collectUntil(func() bool { return false })
	base := int64(liveHeap())
	pods := make([]interface{}, n)
	for i := range pods {
		pod := &corev1.Pod{}
		if err := json.Unmarshal(data[i], pod); err != nil {
			panic(err)
		}
		pods[i], _ = transform(pod)
	}
	retained := int64(liveHeap()) - base
	runtime.KeepAlive(pods)
	return float64(retained) / float64(n)
}

func TestSharingThePartsOfPodsThatHaveNoneInCommonKeepsNoMoreHeapThanNotSharingThem(t *testing.T) {
	t.Cleanup(resetShareStats)
	const pods = 5000
	safe := Chain(StripManagedFields, StripLastAppliedConfiguration, InternStrings) // Recommended
	unshared := retainedByOwnPartsPods(pods, safe)
	resetShareStats()
	shared := retainedByOwnPartsPods(pods, Chain(safe, ShareIdenticalPodParts))
	t.Logf("retained per pod: %.0f B with Recommended, %.0f B with ShareIdenticalPodParts after it", unshared, shared)
	if shared > unshared*1.01 {
		t.Fatalf("sharing the parts of pods that have none in common keeps %.0f B per pod, %.0f B (%.0f%%) more than not sharing them",
			shared, shared-unshared, 100*(shared-unshared)/unshared)
	}
}

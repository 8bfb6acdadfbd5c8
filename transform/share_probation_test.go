package transform

import (
	"fmt"
	"math"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// resetShareStats puts every sharing table back to its first state: no
// counts, no filter (so a test that filled the tables with values no other
// pod has does not put the next test's tables in probation).
func resetShareStats() {
	weakSweeps.mu.Lock()
	tables := weakSweeps.tables
	weakSweeps.mu.Unlock()
	for _, s := range tables {
		if t, ok := s.(*canonTable); ok {
			t.mu.Lock()
			t.stats.news, t.stats.seen = 0, nil
			t.stats.reuses.Store(0)
			t.mu.Unlock()
		}
	}
}

// directSharing turns probation off for the test t (whose subject is how
// the tables keep, share and give back values, with pods whose values no
// other pod has), and puts the tables back to their first state around it.
func directSharing(t *testing.T) {
	resetShareStats()
	after := shareProbationAfter
	shareProbationAfter = math.MaxUint32
	t.Cleanup(func() {
		shareProbationAfter = after
		resetShareStats()
	})
}

// memberPod is a pod with the UID uid whose env and args are value.
func memberPod(uid, value string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "probation", Name: "pod-" + uid, UID: types.UID(uid)},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "member", Env: []corev1.EnvVar{{Name: "V", Value: value}}, Args: []string{"--v=" + value},
		}}},
	}
}

// putInProbation shares n member pods whose values no other pod has.
func putInProbation(tag string, n int) []*corev1.Pod {
	pods := make([]*corev1.Pod, n)
	for i := range pods {
		pods[i] = memberPod(fmt.Sprintf("%s-uid-%d", tag, i), fmt.Sprintf("%s-%d", tag, i))
		sharePodParts(pods[i])
	}
	return pods
}

func TestATableThatSeesMostlyValuesNoOtherPodHasGivesANewValueNoEntryUntilASecondPodHasIt(t *testing.T) {
	resetShareStats()
	t.Cleanup(resetShareStats)
	before := sharedEnvVars.table.size()
	held := putInProbation("probation", 3*int(shareProbationAfter))
	if grown := sharedEnvVars.table.size() - before; grown > int(shareProbationAfter)+1 {
		t.Fatalf("the env table grew by %d entries for %d values no other pod has; want at most %d", grown, len(held), int(shareProbationAfter)+1)
	}
	a, b, c := memberPod("a", "common"), memberPod("b", "common"), memberPod("c", "common")
	for _, p := range []*corev1.Pod{a, b, c} {
		sharePodParts(p)
	}
	env := func(p *corev1.Pod) *corev1.EnvVar { return &p.Spec.Containers[0].Env[0] }
	if env(b) != env(c) {
		t.Fatal("the second and third pods with one env do not share it")
	}
	if env(a) == env(b) {
		t.Fatal("the first pod with the env shares it, though the table was in probation when it came")
	}
}

func TestASecondApplicationLeavesAPartThePodKeptItsOwnEvenOnceOtherPodsShareAnEqualOne(t *testing.T) {
	resetShareStats()
	t.Cleanup(resetShareStats)
	held := putInProbation("second", 3*int(shareProbationAfter))
	a := memberPod("first", "later-common")
	sharePodParts(a)
	own := &a.Spec.Containers[0].Env[0]
	for i := 0; i < 2*int(shareProbationAfter); i++ { // the value is now canonical and reused
		sharePodParts(memberPod(fmt.Sprint("later-", i), "later-common"))
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // a lister's caller reads the cached pod meanwhile
		defer wg.Done()
		_ = a.Spec.Containers[0].Env[0].Value
	}()
	sharePodParts(a) // a relist's Replace of cached objects, a resync
	wg.Wait()
	if &a.Spec.Containers[0].Env[0] != own {
		t.Fatal("a second application replaced a part of a cached pod")
	}
	_ = held
}

func TestRelistingPodsWhosePartsNoOtherPodHasAddsNoEntry(t *testing.T) {
	resetShareStats()
	t.Cleanup(resetShareStats)
	held := putInProbation("relist", 3*int(shareProbationAfter))
	before := sharedEnvVars.table.size()
	relisted := putInProbation("relist", 3*int(shareProbationAfter)) // new objects, same UIDs and values
	if grown := sharedEnvVars.table.size() - before; grown != 0 {
		t.Fatalf("relisting %d pods with values of their own added %d entries", len(relisted), grown)
	}
	_ = held
}

func TestATableLeavesProbationOnceThePodsItSeesShareTheirValuesAgain(t *testing.T) {
	resetShareStats()
	t.Cleanup(resetShareStats)
	held := putInProbation("leave", 3*int(shareProbationAfter))
	for app := 0; app < 40; app++ { // pods of templates: every value reused
		for i := 0; i < 30; i++ {
			held = append(held, memberPod(fmt.Sprintf("leave-app-%d-%d", app, i), fmt.Sprint("leave-app-", app)))
			sharePodParts(held[len(held)-1])
		}
	}
	a, b := memberPod("leave-a", "leave-new"), memberPod("leave-b", "leave-new")
	sharePodParts(a)
	sharePodParts(b)
	if &a.Spec.Containers[0].Env[0] != &b.Spec.Containers[0].Env[0] {
		t.Fatal("the first two pods with a new env do not share it after the table saw templated pods again")
	}
}

func TestAPodIsTakenForTransformedOnlyOnceItsFirstContainerNameIsTheInternedCopy(t *testing.T) {
	decoded := memberPod("fresh", "fresh")
	decoded.Spec.Containers[0].Name = string([]byte("member")) // a decoder's own copy
	if podPartsShared(decoded) {
		t.Fatal("a decoded pod is taken for transformed")
	}
	sharePodParts(decoded)
	if !podPartsShared(decoded) {
		t.Fatal("a transformed pod is not recognised")
	}
	if owner := podOwner(&corev1.Pod{}); owner != 0 {
		t.Fatalf("a pod without containers has the identity %d, want 0 (never a part left its own)", owner)
	}
}

// Package realisticpods renders realistic pods: the hand-written templates
// in templates/ (pods as a kube-apiserver returns them, managedFields of
// several field managers included) expanded into n pods by a seeded
// generator. The in-process benchmarks (benchmarks/) decode them as a client
// receives them; the real-server benchmark (e2e/) creates them in a
// kube-apiserver.
//
// The generator renders JSON bytes only and holds only the templates, never
// a rendered or decoded pod. DecodeList and DecodePod decode with
// client-go's scheme codecs, as a typed client does, so that every decoded
// pod owns its strings.
//
// Shape of n pods: apps of PodsPerApp pods (one ReplicaSet each, same
// labels, pod-template-hash, image and owner), PodsPerNamespace pods per
// namespace (4 apps), PodsPerNode pods per node on average, 12 teams; apps
// cycle through the templates 5:3:2 (web, api, worker). Everything that
// differs per pod (name, UID, resource version, node, IPs, timestamps,
// container IDs, token volume name) is drawn from a random source seeded
// with (seed, pod index), and everything per app from (seed, app index), so
// that any page can be rendered on its own. The same (n, seed) always
// renders the same bytes.
package realisticpods

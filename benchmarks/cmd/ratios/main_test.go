package main

import (
	"strings"
	"testing"
)

// TestRatiosPairTheTwoImplementationsOfEveryBenchmark feeds typical
// `go test -bench` output and checks the printed rows and ratios.
func TestRatiosPairTheTwoImplementationsOfEveryBenchmark(t *testing.T) {
	tests := []struct {
		name     string   // the case
		input    string   // go test -bench output
		wantRows []string // printed rows, whitespace collapsed
	}{
		{
			name: "PlainAndNestedNamesWithCustomMetrics",
			input: `goos: linux
BenchmarkStoreAdd/impl=client-go-2   3   1000 ns/op   10 ns/obj   200 B/op   4 allocs/op
BenchmarkStoreAdd/impl=kcache-2      3    500 ns/op    5 ns/obj   100 B/op   4 allocs/op
BenchmarkStoreByIndex/index=node/impl=client-go-2   1   800 ns/op
BenchmarkStoreByIndex/index=node/impl=kcache-2      1   600 ns/op
PASS`,
			wantRows: []string{
				"BenchmarkStoreAdd ns/op 1000 500 0.500",
				"BenchmarkStoreAdd ns/obj 10 5 0.500",
				"BenchmarkStoreAdd B/op 200 100 0.500",
				"BenchmarkStoreAdd allocs/op 4 4 1.000",
				"BenchmarkStoreByIndex/index=node ns/op 800 600 0.750",
			},
		},
		{
			name: "RepeatedRunsAreAveragedAndZeroesStayComparable",
			input: `BenchmarkStoreList/impl=client-go-2   1   100 ns/op   0 allocs/op
BenchmarkStoreList/impl=client-go-2   1   300 ns/op   0 allocs/op
BenchmarkStoreList/impl=kcache-2      1   100 ns/op   0 allocs/op`,
			wantRows: []string{
				"BenchmarkStoreList ns/op 200 100 0.500",
				"BenchmarkStoreList allocs/op 0 0 1.000",
			},
		},
		{
			name:     "OneSidedBenchmarksSaySo",
			input:    `BenchmarkStoreOnlyOurs/impl=kcache-2   1   100 ns/op`,
			wantRows: []string{"BenchmarkStoreOnlyOurs ns/op 0 100 missing side"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tab, err := parse(strings.NewReader(tc.input))
			if err != nil {
				t.Fatal(err)
			}
			var out strings.Builder
			tab.print(&out)
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			var got []string
			for _, line := range lines[1:] {
				got = append(got, strings.Join(strings.Fields(line), " "))
			}
			if strings.Join(got, "\n") != strings.Join(tc.wantRows, "\n") {
				t.Fatalf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.wantRows, "\n"))
			}
		})
	}
}

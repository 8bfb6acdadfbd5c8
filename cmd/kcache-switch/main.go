// Command kcache-switch switches a Go module from client-go's informer
// machinery (k8s.io/client-go/tools/cache) to kcache, in place:
//
//	go run github.com/kcache-go/cache/cmd/kcache-switch@latest [-dry-run] [-revert] [-require=VERSION] [-replace=DIR] [packages]
//
// Hand-built uses of tools/cache (and /testing, /synctrack) move to kcache
// in the files where every use type-checks against kcache; typed, dynamic
// and metadata factory constructors, the dynamic and metadata
// single-informer constructors, cache.NewSharedInformer and the informer
// constructors of informer-gen output move to
// github.com/kcache-go/cache/clientgo; a typed single-informer constructor
// (coreinformers.NewPodInformer, …) is wrapped in clientgo.OnKcache;
// controller-runtime option literals get NewInformer:
// clientgo.NewSharedIndexInformer. It prints every change and everything
// it could not switch, with the reason, and writes nothing unless the
// rewritten module type-checks. -revert undoes a switch.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/kcache-go/cache/cmd/kcache-switch/internal/switcher"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fs := flag.NewFlagSet("kcache-switch", flag.ContinueOnError)
	var opts switcher.Options
	fs.BoolVar(&opts.DryRun, "dry-run", false, "report what would change, write nothing")
	fs.BoolVar(&opts.Revert, "revert", false, "switch back to client-go")
	fs.StringVar(&opts.Require, "require", "", "add `VERSION` of github.com/kcache-go/cache to go.mod (with -revert: none drops it)")
	fs.StringVar(&opts.Replace, "replace", "", "add a replace of github.com/kcache-go/cache by `DIR` (a checkout) to go.mod")
	fs.StringVar(&opts.Tags, "tags", "", "build `tags` of the packages to switch")
	fs.StringVar(&opts.Dir, "C", ".", "run in `dir`")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: kcache-switch [-dry-run] [-revert] [-require=VERSION] [-replace=DIR] [-tags=TAGS] [-C dir] [packages]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	opts.Patterns = fs.Args()
	report, err := switcher.Run(opts)
	if report != nil {
		report.Print(os.Stdout)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "kcache-switch: %v\n", err)
		return 1
	}
	return 0
}

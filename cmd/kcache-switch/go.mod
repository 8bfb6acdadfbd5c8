module github.com/kcache-go/cache/cmd/kcache-switch

go 1.26.0

require (
	go.uber.org/goleak v1.3.0
	golang.org/x/mod v0.37.0
	golang.org/x/tools v0.47.0
)

require golang.org/x/sync v0.21.0 // indirect

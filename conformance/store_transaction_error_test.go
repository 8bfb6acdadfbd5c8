package conformance

import (
	"errors"
	"testing"

	kc "github.com/kcache-go/cache"
	cg "k8s.io/client-go/tools/cache"
)

// TestTransactionErrorCountsFailuresAsTheTransactionsNotListedSuccessful
// pins the count in TransactionError's message: client-go reports
// TotalTransactions minus the successful ones as failed, whatever Errors
// holds, so a TransactionError built by hand (a fake store, a wrapper that
// merges results) reads the same on both sides, inconsistent ones and a
// nil receiver included.
func TestTransactionErrorCountsFailuresAsTheTransactionsNotListedSuccessful(t *testing.T) {
	boom := errors.New("boom")
	cases := []struct {
		name       string
		successful []int
		total      int
		errs       []error
	}{
		{"one applied of three, one error", []int{0}, 3, []error{boom}},
		{"none applied of three, one error", nil, 3, []error{boom}},
		{"all applied, no error", []int{0, 1, 2}, 3, nil},
		{"more applied than total", []int{0, 1, 2, 3}, 3, []error{boom, boom}},
		{"zero value", nil, 0, nil},
		{"more errors than total", nil, 2, []error{boom, boom, boom}},
		{"as a store reports two failures of three", []int{1}, 3, []error{boom, boom}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := (&cg.TransactionError{SuccessfulIndices: c.successful, TotalTransactions: c.total, Errors: c.errs}).Error()
			got := (&kc.TransactionError{SuccessfulIndices: c.successful, TotalTransactions: c.total, Errors: c.errs}).Error()
			if got != want {
				t.Errorf("Error() = %q, client-go %q", got, want)
			}
		})
	}
	t.Run("nil receiver", func(t *testing.T) {
		var cgNil *cg.TransactionError
		var kcNil *kc.TransactionError
		want := storeCatch(func() string { return cgNil.Error() })
		got := storeCatch(func() string { return kcNil.Error() })
		if got != want {
			t.Errorf("nil receiver: %s, client-go %s", got, want)
		}
	})
}

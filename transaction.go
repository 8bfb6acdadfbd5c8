package cache

import "fmt"

// TransactionStore applies several writes under one acquisition of its lock,
// so that a writer with many changes is not starved by readers.
type TransactionStore interface {
	// Transaction applies txns in order and reports those that failed.
	Transaction(txns ...Transaction) *TransactionError
}

// Transaction is one write of a batch: what to do, and to which object.
type Transaction struct {
	Object interface{}
	Type   TransactionType
}

// TransactionType says what a Transaction does with its object.
type TransactionType string

// The kinds of Transaction. A store applies a Transaction of any other type
// as a no-op.
const (
	TransactionTypeAdd    TransactionType = "Add"
	TransactionTypeUpdate TransactionType = "Update"
	TransactionTypeDelete TransactionType = "Delete"
)

// TransactionError reports the transactions of one Transaction call that
// could not be applied (their key or transform failed); all the others were.
type TransactionError struct {
	// SuccessfulIndices are the positions, in the call, of the applied transactions.
	SuccessfulIndices []int
	// TotalTransactions is how many transactions the call had.
	TotalTransactions int
	// Errors holds one error per transaction that was not applied.
	Errors []error
}

// Error counts as failed the transactions not listed in SuccessfulIndices
// (TotalTransactions minus their number, as client-go counts them, even
// for a TransactionError whose fields disagree) and lists Errors.
func (t *TransactionError) Error() string {
	failed := t.TotalTransactions - len(t.SuccessfulIndices)
	return fmt.Sprintf("failed to execute (%d/%d) transactions failed due to: %v", failed, t.TotalTransactions, t.Errors)
}

// ThreadSafeStoreTransaction is a Transaction with its storage key already
// computed, as a ThreadSafeStore needs it.
type ThreadSafeStoreTransaction struct {
	Transaction
	Key string
}

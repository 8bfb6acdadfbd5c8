package cache

import "fmt"

// TransactionType defines the type of a transaction operation. It is used to
// indicate whether an object is being added, updated, or deleted.
type TransactionType string

const (
	TransactionTypeAdd    TransactionType = "Add"
	TransactionTypeUpdate TransactionType = "Update"
	TransactionTypeDelete TransactionType = "Delete"
)

// Transaction represents a single operation or event in a process. It holds
// a generic Object associated with the transaction and a Type indicating the
// kind of transaction being performed.
type Transaction struct {
	Object interface{}
	Type   TransactionType
}

// TransactionStore is a store that applies several writes under one lock
// acquisition.
type TransactionStore interface {
	// Transaction allows multiple operations to occur within a single lock acquisition to
	// ensure progress can be made when there is contention.
	Transaction(txns ...Transaction) *TransactionError
}

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

func (t *TransactionError) Error() string {
	return fmt.Sprintf("failed to execute (%d/%d) transactions failed due to: %v",
		len(t.Errors), t.TotalTransactions, t.Errors)
}

// ThreadSafeStoreTransaction embeds a Transaction and includes the specific
// Key identifying the affected object.
type ThreadSafeStoreTransaction struct {
	Transaction
	Key string
}

// ThreadSafeStoreWithTransaction is a store that can batch execute multiple
// transactions.
type ThreadSafeStoreWithTransaction interface {
	ThreadSafeStore
	// Transaction allows performing multiple writes in one call.
	Transaction(fns ...ThreadSafeStoreTransaction)
}

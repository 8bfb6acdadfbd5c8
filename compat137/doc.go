// Package compat137 is the differential suite of kcache's client-go v0.37
// API against client-go v0.37.2 itself.
//
// It is its own module because the kcache module requires client-go v0.36.x
// (so that 1.36 users are not pulled to 1.37): this module requires
// client-go v0.37.2 and replaces kcache with the checkout, which shows that
// kcache builds and behaves when a build resolves client-go v0.37. Every
// test feeds the same input to client-go's tools/cache and to kcache and
// requires the same observable trace: the typed handlers (including
// DeletedObject for present, stale and missing objects), the typed
// indexers, the typed informer wrapper, ShutDownEventHandler's ordering,
// and the MutationCache options and informer feedback.
package compat137

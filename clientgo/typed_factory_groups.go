package clientgo

import (
	"k8s.io/client-go/informers/admissionregistration"
	"k8s.io/client-go/informers/apiserverinternal"
	"k8s.io/client-go/informers/apps"
	"k8s.io/client-go/informers/autoscaling"
	"k8s.io/client-go/informers/batch"
	"k8s.io/client-go/informers/certificates"
	"k8s.io/client-go/informers/coordination"
	"k8s.io/client-go/informers/core"
	"k8s.io/client-go/informers/discovery"
	"k8s.io/client-go/informers/events"
	"k8s.io/client-go/informers/extensions"
	"k8s.io/client-go/informers/flowcontrol"
	"k8s.io/client-go/informers/networking"
	"k8s.io/client-go/informers/node"
	"k8s.io/client-go/informers/policy"
	"k8s.io/client-go/informers/rbac"
	"k8s.io/client-go/informers/resource"
	"k8s.io/client-go/informers/scheduling"
	"k8s.io/client-go/informers/storage"
	"k8s.io/client-go/informers/storagemigration"
)

// The API group accessors hand the group packages this factory, so their
// informers come from InformerFor, with the namespace and tweak of the
// options. Groups not listed here are served by the embedded client-go
// factory.

// Admissionregistration returns the admissionregistration informers, built by this factory.
func (tf *kcacheTypedFactory) Admissionregistration() admissionregistration.Interface {
	return admissionregistration.New(tf, tf.scopeNamespace, tf.scopeTweak)
}

// Internal returns the apiserverinternal informers, built by this factory.
func (tf *kcacheTypedFactory) Internal() apiserverinternal.Interface {
	return apiserverinternal.New(tf, tf.scopeNamespace, tf.scopeTweak)
}

// Apps returns the apps informers, built by this factory.
func (tf *kcacheTypedFactory) Apps() apps.Interface {
	return apps.New(tf, tf.scopeNamespace, tf.scopeTweak)
}

// Autoscaling returns the autoscaling informers, built by this factory.
func (tf *kcacheTypedFactory) Autoscaling() autoscaling.Interface {
	return autoscaling.New(tf, tf.scopeNamespace, tf.scopeTweak)
}

// Batch returns the batch informers, built by this factory.
func (tf *kcacheTypedFactory) Batch() batch.Interface {
	return batch.New(tf, tf.scopeNamespace, tf.scopeTweak)
}

// Certificates returns the certificates informers, built by this factory.
func (tf *kcacheTypedFactory) Certificates() certificates.Interface {
	return certificates.New(tf, tf.scopeNamespace, tf.scopeTweak)
}

// Coordination returns the coordination informers, built by this factory.
func (tf *kcacheTypedFactory) Coordination() coordination.Interface {
	return coordination.New(tf, tf.scopeNamespace, tf.scopeTweak)
}

// Core returns the core informers, built by this factory.
func (tf *kcacheTypedFactory) Core() core.Interface {
	return core.New(tf, tf.scopeNamespace, tf.scopeTweak)
}

// Discovery returns the discovery informers, built by this factory.
func (tf *kcacheTypedFactory) Discovery() discovery.Interface {
	return discovery.New(tf, tf.scopeNamespace, tf.scopeTweak)
}

// Events returns the events informers, built by this factory.
func (tf *kcacheTypedFactory) Events() events.Interface {
	return events.New(tf, tf.scopeNamespace, tf.scopeTweak)
}

// Extensions returns the extensions informers, built by this factory.
func (tf *kcacheTypedFactory) Extensions() extensions.Interface {
	return extensions.New(tf, tf.scopeNamespace, tf.scopeTweak)
}

// Flowcontrol returns the flowcontrol informers, built by this factory.
func (tf *kcacheTypedFactory) Flowcontrol() flowcontrol.Interface {
	return flowcontrol.New(tf, tf.scopeNamespace, tf.scopeTweak)
}

// Networking returns the networking informers, built by this factory.
func (tf *kcacheTypedFactory) Networking() networking.Interface {
	return networking.New(tf, tf.scopeNamespace, tf.scopeTweak)
}

// Node returns the node informers, built by this factory.
func (tf *kcacheTypedFactory) Node() node.Interface {
	return node.New(tf, tf.scopeNamespace, tf.scopeTweak)
}

// Policy returns the policy informers, built by this factory.
func (tf *kcacheTypedFactory) Policy() policy.Interface {
	return policy.New(tf, tf.scopeNamespace, tf.scopeTweak)
}

// Rbac returns the rbac informers, built by this factory.
func (tf *kcacheTypedFactory) Rbac() rbac.Interface {
	return rbac.New(tf, tf.scopeNamespace, tf.scopeTweak)
}

// Resource returns the resource informers, built by this factory.
func (tf *kcacheTypedFactory) Resource() resource.Interface {
	return resource.New(tf, tf.scopeNamespace, tf.scopeTweak)
}

// Scheduling returns the scheduling informers, built by this factory.
func (tf *kcacheTypedFactory) Scheduling() scheduling.Interface {
	return scheduling.New(tf, tf.scopeNamespace, tf.scopeTweak)
}

// Storage returns the storage informers, built by this factory.
func (tf *kcacheTypedFactory) Storage() storage.Interface {
	return storage.New(tf, tf.scopeNamespace, tf.scopeTweak)
}

// Storagemigration returns the storagemigration informers, built by this factory.
func (tf *kcacheTypedFactory) Storagemigration() storagemigration.Interface {
	return storagemigration.New(tf, tf.scopeNamespace, tf.scopeTweak)
}

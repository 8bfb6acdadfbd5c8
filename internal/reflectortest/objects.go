package reflectortest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

// MakeError builds the error a scenario names, or nil for an unknown name.
func MakeError(name string) error {
	switch name {
	case "expired":
		return apierrors.NewResourceExpired("resource version expired")
	case "gone":
		return apierrors.NewGone("gone")
	case "tooLargeRV":
		err := apierrors.NewTimeoutError("Too large resource version", 1)
		err.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}}
		return err
	case "tooLargeRVMessage":
		return apierrors.NewTimeoutError("Too large resource version: 20, current: 10", 1)
	case "tooLargeRVCauseWithoutType":
		// Servers 1.17.0-1.18.5: the cause carries the message, no type.
		err := apierrors.NewTimeoutError("request did not complete", 1)
		err.ErrStatus.Details.Causes = []metav1.StatusCause{{Message: "Too large resource version"}}
		return err
	case "tooLargeRVStatusMessage":
		// Older servers: the status's own message, no causes.
		return &apierrors.StatusError{ErrStatus: metav1.Status{
			Status: metav1.StatusFailure, Code: 504, Reason: metav1.StatusReasonTimeout,
			Message: "Too large resource version",
		}}
	case "tooLargeRVStatusMessageEmptyDetails":
		return &apierrors.StatusError{ErrStatus: metav1.Status{
			Status: metav1.StatusFailure, Code: 504, Reason: metav1.StatusReasonTimeout,
			Message: "Too large resource version", Details: &metav1.StatusDetails{},
		}}
	case "tooLargeRVCauseMessagePrefixed":
		// A typeless cause only counts with exactly the message.
		err := apierrors.NewTimeoutError("request did not complete", 1)
		err.ErrStatus.Details.Causes = []metav1.StatusCause{{Message: "Too large resource version: 20"}}
		return err
	case "tooLargeRVCauseTypeOnBadRequest":
		err := apierrors.NewBadRequest("resource version")
		err.ErrStatus.Details = &metav1.StatusDetails{Causes: []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge}}}
		return err
	case "tooLargeRVCauseMessageOnInternalError":
		err := apierrors.NewInternalError(errors.New("x"))
		err.ErrStatus.Details.Causes = []metav1.StatusCause{{Message: "Too large resource version"}}
		return err
	case "timeout":
		return apierrors.NewTimeoutError("request did not complete", 1)
	case "internal":
		return apierrors.NewInternalError(errors.New("etcd hiccup"))
	case "tooManyRequests":
		return apierrors.NewTooManyRequests("slow down", 1)
	case "tooManyRequestsRetryAfter30":
		return apierrors.NewTooManyRequests("slow down", 30)
	case "tooManyRequestsNoRetryAfter":
		return apierrors.NewTooManyRequests("slow down", 0)
	case "tooManyRequestsWrapped":
		return fmt.Errorf("watch: %w", apierrors.NewTooManyRequests("slow down", 1))
	case "connectionRefused":
		return &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}
	case "connectionReset":
		return &net.OpError{Op: "read", Net: "tcp", Err: &os.SyscallError{Syscall: "read", Err: syscall.ECONNRESET}}
	case "badRequest":
		return apierrors.NewBadRequest("bad request")
	case "forbidden":
		return apierrors.NewForbidden(v1.Resource("pods"), "", errors.New("no"))
	case "serviceUnavailable":
		return apierrors.NewServiceUnavailable("unavailable")
	case "eof":
		return io.EOF
	case "unexpectedEOF":
		return io.ErrUnexpectedEOF
	case "plain":
		return errors.New("something broke")
	}
	return nil
}

// statusOf turns a named error into the Status object of an ERROR event.
func statusOf(name string) runtime.Object {
	var status apierrors.APIStatus
	if errors.As(MakeError(name), &status) {
		s := status.Status()
		return &s
	}
	return &metav1.Status{Status: metav1.StatusFailure, Message: MakeError(name).Error()}
}

// namespace is the object's namespace with the default applied.
func (o Object) namespace() string {
	switch o.Namespace {
	case "":
		return "ns"
	case "-":
		return ""
	}
	return o.Namespace
}

// Build returns the runtime object o describes.
func (o Object) Build() runtime.Object {
	switch o.Kind {
	case "nil":
		return nil
	case "Value":
		return ValueObject{Name: o.Name}
	case "Status":
		return &metav1.Status{Status: metav1.StatusSuccess, Message: o.Name}
	case "Node":
		return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: o.Name, ResourceVersion: o.ResourceVersion, Labels: copyLabels(o.Labels)}}
	case "Unstructured":
		u := &unstructured.Unstructured{Object: map[string]interface{}{}}
		u.SetAPIVersion(orDefault(o.APIVersion, "v1"))
		u.SetKind(orDefault(o.UKind, "Pod"))
		u.SetName(o.Name)
		u.SetNamespace(o.namespace())
		u.SetResourceVersion(o.ResourceVersion)
		u.SetLabels(copyLabels(o.Labels))
		return u
	}
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: o.Name, Namespace: o.namespace(), ResourceVersion: o.ResourceVersion, Labels: copyLabels(o.Labels)}}
}

// ValueObject is a runtime.Object implemented on a value (not a pointer),
// without object metadata: bad input for a Reflector.
type ValueObject struct {
	// Name tells objects apart in traces.
	Name string
}

// GetObjectKind implements runtime.Object.
func (ValueObject) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }

// DeepCopyObject implements runtime.Object.
func (v ValueObject) DeepCopyObject() runtime.Object { return v }

// buildList returns the list a ListStep describes, typed like its items.
func (l ListStep) buildList(unstructuredItems bool) runtime.Object {
	if unstructuredItems {
		list := &unstructured.UnstructuredList{Object: map[string]interface{}{"apiVersion": "v1", "kind": "PodList"}}
		list.SetResourceVersion(l.ResourceVersion)
		list.SetContinue(l.Continue)
		for _, item := range l.Items {
			item.Kind = "Unstructured"
			list.Items = append(list.Items, *item.Build().(*unstructured.Unstructured))
		}
		return list
	}
	list := &v1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: l.ResourceVersion, Continue: l.Continue}}
	for _, item := range l.Items {
		list.Items = append(list.Items, *item.Build().(*v1.Pod))
	}
	return list
}

// buildRawList returns the list as a metav1.List of RawExtensions, holding
// each item's JSON ("raw") or the item itself ("object").
func (l ListStep) buildRawList() runtime.Object {
	list := &metav1.List{ListMeta: metav1.ListMeta{ResourceVersion: l.ResourceVersion, Continue: l.Continue}}
	for _, item := range l.Items {
		obj := item.Build()
		if l.RawItems == "object" {
			list.Items = append(list.Items, runtime.RawExtension{Object: obj})
			continue
		}
		raw, _ := json.Marshal(obj)
		list.Items = append(list.Items, runtime.RawExtension{Raw: raw})
	}
	return list
}

// buildTable returns the list as a meta.k8s.io/v1 Table whose rows are the
// items (unstructured).
func (l ListStep) buildTable() runtime.Object {
	list := &unstructured.UnstructuredList{Object: map[string]interface{}{"apiVersion": orDefault(l.TableAPIVersion, "meta.k8s.io/v1"), "kind": "Table"}}
	list.SetResourceVersion(l.ResourceVersion)
	list.SetContinue(l.Continue)
	for _, item := range l.Items {
		if item.Kind == "" {
			item.Kind = "Unstructured"
		}
		list.Items = append(list.Items, *item.Build().(*unstructured.Unstructured))
	}
	return list
}

// buildEvent returns the watch event e describes.
func (e Event) buildEvent(unstructuredItems bool) watch.Event {
	if e.Type == "ERROR" && e.Error != "" {
		return watch.Event{Type: watch.Error, Object: statusOf(e.Error)}
	}
	obj := e.Object
	if unstructuredItems && obj.Kind == "" {
		obj.Kind = "Unstructured"
	}
	built := obj.Build()
	if e.InitialEventsEnd && built != nil {
		accessor, _ := metaAccessor(built)
		accessor.SetAnnotations(map[string]string{metav1.InitialEventsAnnotationKey: "true"})
	}
	return watch.Event{Type: watch.EventType(e.Type), Object: built}
}

func copyLabels(in map[string]string) map[string]string {
	if in == nil {
		return nil
	}
	out := make(map[string]string, len(in))
	for k, v := range in {
		out[k] = v
	}
	return out
}

func orDefault(v, d string) string {
	if v == "" {
		return d
	}
	return v
}

package cache

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
)

// handlerName returns a human-readable name for an event handler, used in
// the name of a registration's DoneChecker, in log messages and as the
// handlerName label of the pending-notifications metric.
//
// For a ResourceEventHandlerFuncs (value or pointer) the name is where its
// first non-nil function lives: the function's symbol without its last
// element (a package for a plain function, the enclosing function for a
// closure, the receiver type for a method value). Any other handler is named
// by its type, pointers removed, as "import/path.TypeName". It never panics
// and never returns an empty string.
func handlerName(handler ResourceEventHandler) string {
	switch h := handler.(type) {
	case ResourceEventHandlerFuncs:
		return funcsHandlerName(h)
	case *ResourceEventHandlerFuncs:
		if h != nil {
			return funcsHandlerName(*h)
		}
	}
	return typeName(handler)
}

// funcsHandlerName names a ResourceEventHandlerFuncs after its first non-nil
// function, or after its type when all are nil.
func funcsHandlerName(h ResourceEventHandlerFuncs) string {
	for _, fn := range []interface{}{h.AddFunc, h.UpdateFunc, h.DeleteFunc} {
		if name := funcOwnerName(fn); name != "" {
			return name
		}
	}
	return fmt.Sprintf("%T", h)
}

// funcOwnerName returns the symbol of fn minus its last dot-separated
// element, or "" when fn is nil or unknown to the runtime.
func funcOwnerName(fn interface{}) string {
	v := reflect.ValueOf(fn)
	if v.Kind() != reflect.Func || v.IsNil() {
		return ""
	}
	f := runtime.FuncForPC(v.Pointer())
	if f == nil {
		return ""
	}
	symbol := f.Name()
	// The last element is cut after the last slash, so that dots inside
	// an import path ("k8s.io/...") are kept.
	slash := strings.LastIndexByte(symbol, '/') + 1
	if dot := strings.LastIndexByte(symbol[slash:], '.'); dot >= 0 {
		return symbol[:slash+dot]
	}
	return symbol
}

// typeName names a value by its dereferenced type as "import/path.Name";
// unnamed types fall back to their %T spelling.
func typeName(v interface{}) string {
	t := reflect.TypeOf(v)
	if t == nil {
		return "<nil>"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Name() == "" {
		return fmt.Sprintf("%T", v)
	}
	if t.PkgPath() == "" {
		return t.Name()
	}
	return t.PkgPath() + "." + t.Name()
}

package cache

import (
	"reflect"
	"runtime"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// This file derives a Reflector's identity from how it was created: its
// default name (the caller's source position) and the description and
// group/version/kind of the type it expects.

// reflectorPackagePath is the import path of this package, taken from a
// function declared in it, so callerName can recognise its frames.
var reflectorPackagePath = func() string {
	fn := runtime.FuncForPC(reflect.ValueOf(shortSourcePath).Pointer()).Name()
	return fn[:strings.LastIndex(fn, ".")]
}()

// callerName returns "file.go:line" of the nearest caller outside this
// package's library code (this package's tests count as outside), with the
// file path shortened after its last /vendor/, /src/ or /pkg/ element, or
// "????" when the stack holds no such frame.
func callerName() string {
	pcs := make([]uintptr, 32)
	n := runtime.Callers(2, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	for {
		frame, more := frames.Next()
		if !isLibraryFrame(frame) && !strings.Contains(frame.File, "/runtime/asm_") {
			return shortSourcePath(frame.File) + ":" + strconv.Itoa(frame.Line)
		}
		if !more {
			return "????"
		}
	}
}

// isLibraryFrame reports whether frame runs non-test code of this package.
func isLibraryFrame(frame runtime.Frame) bool {
	if strings.HasSuffix(frame.File, "_test.go") {
		return false
	}
	pkg := frame.Function
	if i := strings.LastIndex(pkg, "/"); i >= 0 {
		if j := strings.Index(pkg[i:], "."); j >= 0 {
			pkg = pkg[:i+j]
		}
	} else if j := strings.Index(pkg, "."); j >= 0 {
		pkg = pkg[:j]
	}
	return pkg == reflectorPackagePath
}

// shortSourcePath drops the part of file up to its last /vendor/ or /src/
// element, or up to (not including) its last pkg/ element.
func shortSourcePath(file string) string {
	if i := strings.LastIndex(file, "/vendor/"); i >= 0 {
		return file[i+len("/vendor/"):]
	}
	if i := strings.LastIndex(file, "/src/"); i >= 0 {
		return file[i+len("/src/"):]
	}
	if i := strings.LastIndex(file, "/pkg/"); i >= 0 {
		return file[i+1:]
	}
	return file
}

// typeDescriptionOf describes expectedType for logs: "<unspecified>" for
// nil, the group/version/kind of an unstructured object that names one, and
// otherwise the Go type.
func typeDescriptionOf(expectedType interface{}) string {
	if expectedType == nil {
		return "<unspecified>"
	}
	if gvk := expectedGVKOf(expectedType); gvk != nil {
		return gvk.String()
	}
	return reflect.TypeOf(expectedType).String()
}

// expectedGVKOf returns the group/version/kind an *unstructured.Unstructured
// expected type names, or nil when expectedType is of another type or names
// none.
func expectedGVKOf(expectedType interface{}) *schema.GroupVersionKind {
	u, ok := expectedType.(*unstructured.Unstructured)
	if !ok || u == nil {
		return nil
	}
	gvk := u.GroupVersionKind()
	if gvk.Empty() {
		return nil
	}
	return &gvk
}

package conformance

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	cg "k8s.io/client-go/tools/cache"

	kc "github.com/kcache-go/cache"
)

// queueRender turns anything a queue can hand to its consumer (from either
// implementation) into the same text, so that the two traces compare as
// strings. An unexpected type renders with its Go type name, which differs
// between the packages and so shows up as a mismatch.
func queueRender(x interface{}) string {
	switch v := x.(type) {
	case nil:
		return "nil"
	case *v1.Pod:
		if v == nil {
			return "(*Pod)(nil)"
		}
		return v.Namespace + "/" + v.Name + "@" + v.ResourceVersion
	case int:
		return fmt.Sprintf("int(%d)", v)
	case queueTombstone:
		return "Tombstone(" + v.key + "," + queueRender(v.obj) + ")"
	case cg.DeletedFinalStateUnknown:
		return "Tombstone(" + v.Key + "," + queueRender(v.Obj) + ")"
	case kc.DeletedFinalStateUnknown:
		return "Tombstone(" + v.Key + "," + queueRender(v.Obj) + ")"
	case cg.ReplacedAllInfo:
		return "ReplacedAllInfo(" + v.ResourceVersion + ";" + queueRenderList(v.Objects) + ")"
	case kc.ReplacedAllInfo:
		return "ReplacedAllInfo(" + v.ResourceVersion + ";" + queueRenderList(v.Objects) + ")"
	case cg.SyncAllInfo, kc.SyncAllInfo:
		return "SyncAllInfo"
	case cg.BookmarkInfo:
		return "BookmarkInfo(" + v.ResourceVersion + ")"
	case kc.BookmarkInfo:
		return "BookmarkInfo(" + v.ResourceVersion + ")"
	case cg.Deltas:
		return "Deltas" + queueRenderCGDeltas(v)
	case kc.Deltas:
		return "Deltas" + queueRenderKCDeltas(v)
	case []cg.Delta:
		return "[]Delta" + queueRenderCGDeltas(v)
	case []kc.Delta:
		return "[]Delta" + queueRenderKCDeltas(v)
	}
	return fmt.Sprintf("%T(%v)", x, x)
}

// queueRenderList renders a list of objects.
func queueRenderList(list []interface{}) string {
	parts := make([]string, len(list))
	for i, o := range list {
		parts[i] = queueRender(o)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// queueRenderCGDeltas renders client-go deltas as [Type:object ...].
func queueRenderCGDeltas(ds []cg.Delta) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = string(d.Type) + ":" + queueRender(d.Object)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// queueRenderKCDeltas renders kcache deltas as [Type:object ...].
func queueRenderKCDeltas(ds []kc.Delta) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = string(d.Type) + ":" + queueRender(d.Object)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// queueRenderErr renders an error as its message, or "ok".
func queueRenderErr(err error) string {
	if err == nil {
		return "ok"
	}
	return "error(" + err.Error() + ")"
}

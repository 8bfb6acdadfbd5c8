package cache

// internUnstructuredMetadata is InternStrings's edit of an Unstructured's
// "metadata" map: the keys of the map and the namespace, generateName,
// labels, annotations, ownerReferences and finalizers values. Values of an
// unexpected type are left alone.
func internUnstructuredMetadata(md map[string]interface{}) {
	for k, v := range md {
		switch k {
		case "namespace", "generateName":
			md[internString(k)] = internBoxedString(v)
		case "labels", "annotations":
			if m, ok := v.(map[string]interface{}); ok {
				internBoxedStringMap(m)
			}
			md[internString(k)] = v
		case "ownerReferences":
			internUnstructuredOwnerReferences(v)
			md[internString(k)] = v
		case "finalizers":
			if s, ok := v.([]interface{}); ok {
				for i, f := range s {
					s[i] = internBoxedString(f)
				}
			}
			md[internString(k)] = v
		default:
			md[internString(k)] = v
		}
	}
}

// internBoxedString returns v with its string interned when v is a string
// that is not already the canonical copy, and v itself otherwise (so an
// interned value is not boxed again: idempotent and allocation-free).
func internBoxedString(v interface{}) interface{} {
	s, ok := v.(string)
	if !ok {
		return v
	}
	c := internString(s)
	if sameStringData(c, s) {
		return v
	}
	return c
}

// internBoxedStringMap interns the keys of m and its string values, in place.
func internBoxedStringMap(m map[string]interface{}) {
	for k, v := range m {
		m[internString(k)] = internBoxedString(v)
	}
}

// internUnstructuredOwnerReferences interns, in every owner reference map of
// refs (a []interface{} when well formed), the keys and the apiVersion,
// kind, name and uid values.
func internUnstructuredOwnerReferences(refs interface{}) {
	s, ok := refs.([]interface{})
	if !ok {
		return
	}
	for _, r := range s {
		m, ok := r.(map[string]interface{})
		if !ok {
			continue
		}
		for k, v := range m {
			switch k {
			case "apiVersion", "kind", "name", "uid":
				v = internBoxedString(v)
			}
			m[internString(k)] = v
		}
	}
}

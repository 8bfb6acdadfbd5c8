package transform

// internUnstructuredMetadata is InternStrings's edit of an Unstructured's
// "metadata" map: the keys of the map and the namespace, generateName,
// labels, annotations, ownerReferences and finalizers values. Values of an
// unexpected type are left alone.
func internUnstructuredMetadata(md map[string]interface{}) {
	for k, v := range md {
		nv := v
		switch k {
		case "namespace", "generateName":
			nv = internBoxedString(v)
		case "labels", "annotations":
			if m, ok := v.(map[string]interface{}); ok {
				internBoxedStringMap(m)
			}
		case "ownerReferences":
			internUnstructuredOwnerReferences(v)
		case "finalizers":
			if s, ok := v.([]interface{}); ok {
				internBoxedStrings(s)
			}
		}
		setInternedKey(md, k, v, nv)
	}
}

// setInternedKey stores nv under the canonical copy of k in m, which holds
// v under k, but only when either differs (nv is v or a new value), so an
// interned map is never written: a second pass over it is read-only.
func setInternedKey(m map[string]interface{}, k string, v, nv interface{}) {
	ck := internString(k)
	if sameStringData(ck, k) && sameBox(v, nv) {
		return
	}
	m[ck] = nv
}

// sameBox reports whether nv is v as internBoxedString returned it (the
// same interface value, not a re-boxed string).
func sameBox(v, nv interface{}) bool {
	s, ok := v.(string)
	if !ok {
		return true // internBoxedString returns non-strings as they are
	}
	ns, _ := nv.(string)
	return sameStringData(s, ns)
}

// internBoxedStrings interns the string entries of s in place, writing only
// those that are not canonical copies already.
func internBoxedStrings(s []interface{}) {
	for i, f := range s {
		if nf := internBoxedString(f); !sameBox(f, nf) {
			s[i] = nf
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
		setInternedKey(m, k, v, internBoxedString(v))
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
			nv := v
			switch k {
			case "apiVersion", "kind", "name", "uid":
				nv = internBoxedString(v)
			}
			setInternedKey(m, k, v, nv)
		}
	}
}

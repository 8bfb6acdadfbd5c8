package status

// The causes a Reflector attributes a relist to: the last error it saw
// before it listed again. They are the keys of Reflector.RelistsByCause and
// the cause label of kcache's relist metric.
const (
	// RelistCauseExpired: the server no longer had the resource version
	// (410 Gone / Expired), e.g. after compaction.
	RelistCauseExpired = "expired"
	// RelistCauseTooLargeResourceVersion: the server was behind the
	// requested resource version.
	RelistCauseTooLargeResourceVersion = "too_large_resource_version"
	// RelistCauseDecodeError: an event or list could not be decoded.
	RelistCauseDecodeError = "decode_error"
	// RelistCauseOther: any other error, or none (e.g. a resync failure).
	RelistCauseOther = "other"
)

// RelistCauses returns every cause a relist is counted under, in a fixed
// order (the order of the constants above); the caller owns the slice.
func RelistCauses() []string {
	return []string{RelistCauseExpired, RelistCauseTooLargeResourceVersion, RelistCauseDecodeError, RelistCauseOther}
}

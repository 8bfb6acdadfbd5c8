package cache

import (
	"errors"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// This file holds the errors a ListAndWatch round can end with and how the
// Reflector, its metrics and its status tell them apart. It refers to no
// other file of the package.

// VeryShortWatchError reports a watch whose stream closed less than a
// second after it opened without delivering a single event, which points at
// a server or proxy problem.
type VeryShortWatchError struct {
	// Name is the name of the Reflector whose watch it was.
	Name string
}

// Error describes the short watch and names the Reflector.
func (e *VeryShortWatchError) Error() string {
	return "very short watch: " + e.Name + ": Unexpected watch close - watch lasted less than a second and no items received"
}

// isExpiredError reports whether the server said the requested resource
// version is too old (410 Gone or Expired).
func isExpiredError(err error) bool {
	return apierrors.IsResourceExpired(err) || apierrors.IsGone(err)
}

// tooLargeResourceVersionMessage is how servers before 1.18.6 say that the
// requested resource version is newer than what they have.
const tooLargeResourceVersionMessage = "Too large resource version"

// isTooLargeResourceVersionError reports whether the server said the
// requested resource version is newer than what it has, in any of the three
// dialects servers speak: a status cause of type ResourceVersionTooLarge
// (1.18.6 and later, whatever the reason); or a timeout (reason Timeout or
// code 504) with status details whose cause message is exactly
// tooLargeResourceVersionMessage (1.17.0-1.18.5), or whose own message
// contains it (older). NB: a timeout without any details is not one, as in
// client-go.
func isTooLargeResourceVersionError(err error) bool {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return false
	}
	s := status.Status()
	if s.Details == nil {
		return false
	}
	for _, cause := range s.Details.Causes {
		if cause.Type == metav1.CauseTypeResourceVersionTooLarge {
			return true
		}
	}
	if !apierrors.IsTimeout(err) {
		return false
	}
	for _, cause := range s.Details.Causes {
		if cause.Message == tooLargeResourceVersionMessage {
			return true
		}
	}
	return strings.Contains(s.Message, tooLargeResourceVersionMessage)
}

// isResourceVersionUnavailable reports whether err means the requested
// resource version cannot be served, too old or too new.
func isResourceVersionUnavailable(err error) bool {
	return isExpiredError(err) || isTooLargeResourceVersionError(err)
}

// errStopRequested is returned by the event loop when ctx was cancelled.
var errStopRequested = errors.New("stop requested")

// isVeryShortWatch reports whether err is a *VeryShortWatchError.
func isVeryShortWatch(err error) bool {
	var short *VeryShortWatchError
	return errors.As(err, &short)
}

// Package tfutil holds what the hypercompute resources share beyond their own API: the adapter that
// turns a catalog rule into an attribute validator, labels with the provider's default_labels,
// network references, waiting on instances, and the plan-time checks every storage resource makes
// (provider defaults, immutable attributes, deletion protection); the storage lifecycle
// (Storage, StorageResource); not-found decided at the find (Lookup, NotFoundError); and the
// provider's side of the agent contract: the guest-attribute report and its waiter (Report,
// ReportWait) and the fingerprint-checked metadata writer (EditMetadata, SetMetadataKey).
//
// It lives under internal/resources so only resource packages use it; rules about the cloud itself
// (names, tiers, label syntax) stay in package catalog, which the emulator reads too. A helper comes
// here once a second resource needs it, so each piece of logic has one implementation.
package tfutil

/// Limits every back end shares.
package enum StateStoreDefaults {
    /// How long a done event is kept before the sweep deletes it.
    package static let doneEventLifetimeSeconds: Int64 = 24 * 60 * 60
}

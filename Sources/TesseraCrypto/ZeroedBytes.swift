extension Array where Element == UInt8 {
    /// `count` zero bytes, for a buffer that is written in place next (a digest, a nonce, a tag, decoded text).
    ///
    /// `init(repeating:count:)` and `init(unsafeUninitializedCapacity:initializingWith:)` allocate through the
    /// standard library's `_allocateBufferUninitialized`, which is not specialized into its callers and looks up the
    /// array storage's type metadata on every call: about 420 instructions more an array under callgrind than this,
    /// which the standard library allocates through code specialized for bytes. The token path makes about two dozen
    /// such arrays a native-app cycle.
    package init(zeroes count: Int) {
        self.init(repeatElement(0, count: count))
    }
}

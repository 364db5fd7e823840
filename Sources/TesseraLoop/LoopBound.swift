/// A value that belongs to one event loop and may still travel to other threads: the wrapper is `Sendable`, and every
/// read of the value checks that it runs on the loop's thread (swift-nio's `NIOLoopBound`). Use it instead of
/// declaring a loop-confined class `@unchecked Sendable`: the confinement is then checked at each use, not only
/// promised in a comment.
public struct LoopBound<Value>: @unchecked Sendable {
    /// The loop the value belongs to; safe from any thread.
    public let loop: EventLoop
    private let bound: Value

    /// Binds `value`, made on `loop`'s thread, to `loop`.
    public init(_ value: Value, loop: EventLoop) {
        loop.preconditionInEventLoop()
        self.loop = loop
        bound = value
    }

    /// Binds `value` to `loop` from any thread: the value is handed over (`sending`), so the compiler has checked that
    /// nothing else holds it.
    public init(handingOver value: sending Value, to loop: EventLoop) {
        self.loop = loop
        bound = value
    }

    /// The value; only on the loop's thread.
    public var value: Value {
        loop.preconditionInEventLoop()
        return bound
    }
}

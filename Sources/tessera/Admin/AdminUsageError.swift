/// A command line the admin CLI refuses before calling anything: the message is printed as `tessera: …` and the
/// exit status is 2, like argument-parser's own usage errors.
struct AdminUsageError: Error, Equatable, CustomStringConvertible {
    /// One line saying what is wrong and, where it helps, what to do instead.
    let description: String

    /// Creates the error.
    init(_ description: String) {
        self.description = description
    }
}

/// Assembles header fields from http_parser's callbacks, which deliver a name and a value in any number of
/// pieces: a name piece that follows a value piece starts the next field. Shared by the request and the
/// response parser.
struct HTTPHeaderFieldReader {
    /// A field name that is not an HTTP token; http_parser lets spaces through.
    struct InvalidName: Error {}

    private var name: [UInt8] = []
    private var value: [UInt8] = []
    private var lastPieceWasValue = false

    /// Whether a name piece now would start a new field, so the current one must be taken first.
    var fieldIsComplete: Bool { lastPieceWasValue }

    /// Adds a piece of the current field's name.
    mutating func appendName(_ piece: UnsafeRawBufferPointer) {
        name.append(contentsOf: piece)
    }

    /// Adds a piece of the current field's value.
    mutating func appendValue(_ piece: UnsafeRawBufferPointer) {
        value.append(contentsOf: piece)
        lastPieceWasValue = true
    }

    /// The field read so far (its value trimmed of spaces and tabs), and forgets it; nil when there is none.
    mutating func take() throws(InvalidName) -> (name: String, value: String)? {
        guard lastPieceWasValue || !name.isEmpty else { return nil }
        guard !name.isEmpty, name.allSatisfy(HTTPResponseEncoder.isTokenByte) else { throw InvalidName() }
        let field = (name: String(decoding: name, as: UTF8.self), value: HTTPRequestParser.trimmed(value))
        reset()
        return field
    }

    /// Forgets any partial field, for a new message.
    mutating func reset() {
        name.removeAll(keepingCapacity: true)
        value.removeAll(keepingCapacity: true)
        lastPieceWasValue = false
    }
}

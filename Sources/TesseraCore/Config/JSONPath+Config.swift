import TesseraJSON

extension JSONPath {
    /// This path extended by an object member.
    func appending(_ key: String) -> JSONPath {
        JSONPath(components + [.key(key)])
    }

    /// This path extended by an array element.
    func appending(_ index: Int) -> JSONPath {
        JSONPath(components + [.index(index)])
    }

    /// The path as error details name it: its dotted form, or "the object" for the root.
    var named: String {
        isRoot ? "the object" : description
    }
}

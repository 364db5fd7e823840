extension ConfigPaths {
    /// The field chains an `updateMask` names, each from a top-level field down to the named one, in mask order.
    ///
    /// Paths are separated by commas; spaces around a comma are trimmed. An empty mask, an empty path or segment
    /// (`a,,b`, `mfa..state`, `mfa.`), whitespace inside a path, an output-only field, or a path that is not a
    /// settable field (including one that reaches into an array or a map) is `INVALID_ARGUMENT`.
    func resolve(mask: String) throws(AuthError) -> [[ConfigField]] {
        guard !mask.isEmpty else {
            throw AuthError(.invalidArgument, "updateMask is empty; omit it to replace every field")
        }
        var chains: [[ConfigField]] = []
        for entry in mask.split(separator: ",", omittingEmptySubsequences: false) {
            var path = entry
            while path.first == " " { path.removeFirst() }
            while path.last == " " { path.removeLast() }
            guard !path.isEmpty else { throw AuthError(.invalidArgument, "updateMask has an empty path") }
            guard !path.contains(where: \.isWhitespace) else {
                throw AuthError(.invalidArgument, "updateMask path '\(path)' contains whitespace")
            }
            let names = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard !names.contains(where: \.isEmpty) else {
                throw AuthError(.invalidArgument, "updateMask path '\(path)' has an empty segment")
            }
            chains.append(try chain(naming: names, path: String(path)))
        }
        return chains
    }

    /// The fields along one dotted path.
    private func chain(naming names: [String], path: String) throws(AuthError) -> [ConfigField] {
        if let first = names.first, outputOnlyFields.contains(first) {
            throw AuthError(.invalidArgument, "updateMask path '\(path)' names an output-only field")
        }
        var chain: [ConfigField] = []
        var candidates = fields
        for name in names {
            guard let field = candidates.first(where: { $0.name == name }) else {
                throw AuthError(.invalidArgument, "updateMask path '\(path)' is not a settable field")
            }
            chain.append(field)
            candidates = field.children
        }
        return chain
    }
}

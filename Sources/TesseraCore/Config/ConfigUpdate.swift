public import TesseraJSON

/// Applies `projects.updateConfig` and `tenants.update` bodies to stored configuration (API §5), as pure code: the
/// caller loads the stored JSON and persists what comes back.
public enum ConfigUpdate {
    /// The new normalized JSON of a resource after an update, or an error and no result at all (an update is
    /// atomic).
    ///
    /// Without a mask, the body replaces every settable field: it is validated whole, and omitted fields take their
    /// defaults (an omitted tenant override becomes absent, so the tenant inherits again).
    ///
    /// A mask is a comma-separated list of the dotted paths in ``ConfigPaths/settablePaths``; spaces around a comma
    /// are trimmed. An empty mask, an empty path or segment, whitespace inside a path, an unknown path (one into an
    /// array or a map included) or an output-only field is `INVALID_ARGUMENT` naming the path. With a mask, the
    /// result starts from `stored` and, for each named path:
    /// - when the body has a value there, that value is copied in, creating parent objects as needed
    ///   (`mfaConfig.state` on a tenant without `mfaConfig` creates `mfaConfig: {state}`, and the rest of it takes
    ///   defaults);
    /// - when it has none (absent or `null`), the field is removed, so it takes its default; an override named
    ///   whole (`mfaConfig`) becomes absent and is inherited again. Removing never creates parents.
    ///
    /// Body fields the mask does not name are ignored, even invalid ones. The merged object is then validated whole
    /// through the resource's `init(json:)` and returned normalized, so a mask that names one valid and one invalid
    /// change fails and changes nothing.
    ///
    /// `smsRegionConfig`'s two forms are alternatives, as in a protobuf `oneof`: copying one form in (or a field
    /// inside it) removes the other, unless the mask also names the other form, a field inside it, or
    /// `smsRegionConfig` whole; then the body decides both, and a result with both forms is `INVALID_CONFIG`. So
    /// with a stored `allowByDefault`, the mask `smsRegionConfig.allowlistOnly` and a body carrying `allowlistOnly`
    /// switch to the allowlist. Clearing the form in use leaves the default form, `allowByDefault` with no
    /// disallowed regions, not an empty object; to drop a tenant's override, name `smsRegionConfig` itself.
    ///
    /// A value that the body has where the mask needs an object (`mfaConfig: "x"` under the mask `mfaConfig.state`)
    /// is copied in as it is, so validation rejects it with the reason and path of that field.
    public static func apply(
        body: JSONObject, to stored: JSONObject, updateMask: String?, paths: ConfigPaths
    ) throws(AuthError) -> JSONObject {
        guard let updateMask else { return try paths.normalize(body, stored) }
        let chains = try paths.resolve(mask: updateMask)
        let selection = MaskSelection(chains)
        var merged = stored
        for chain in chains {
            if let (value, depth) = bodyValue(along: chain, in: body) {
                set(value, along: chain.prefix(depth)[...], under: nil, in: &merged, selection: selection, prefix: [])
            } else {
                remove(along: chain, in: &merged)
            }
        }
        for chain in chains {
            restoreAlternativesDefault(along: chain, in: &merged, selection: selection)
        }
        return try paths.normalize(merged, stored)
    }

    /// The body's value at the end of a chain with the chain's length, or, when a value on the way is not an object,
    /// that value with the length of the chain up to it; nil when the body has nothing there.
    private static func bodyValue(along chain: [ConfigField], in body: JSONObject) -> (JSONValue, Int)? {
        var object = body
        for (depth, field) in chain.enumerated() {
            guard let value = ConfigJSON.member(field.name, of: object) else { return nil }
            guard depth < chain.count - 1, case .object(let child) = value else { return (value, depth + 1) }
            object = child
        }
        return nil
    }

    /// Stores a value at the end of a chain, creating parent objects, and removes the other alternatives of every
    /// alternative the chain passes through, except those the mask reaches itself.
    private static func set(
        _ value: JSONValue, along chain: ArraySlice<ConfigField>, under parent: ConfigField?,
        in object: inout JSONObject, selection: MaskSelection, prefix: [String]
    ) {
        guard let field = chain.first else { return }
        if let parent, parent.alternativesDefault != nil {
            for sibling in parent.children where sibling.name != field.name {
                if !selection.reaches(prefix + [sibling.name]) { object[sibling.name] = nil }
            }
        }
        let rest = chain.dropFirst()
        guard !rest.isEmpty else {
            object[field.name] = value
            return
        }
        var child = object[field.name]?.objectValue ?? JSONObject()
        set(value, along: rest, under: field, in: &child, selection: selection, prefix: prefix + [field.name])
        object[field.name] = .object(child)
    }

    /// Removes the field at the end of a chain, when its parents exist.
    private static func remove(along chain: [ConfigField], in object: inout JSONObject) {
        guard let last = chain.last else { return }
        changeExisting(chain.dropLast().map(\.name)[...], in: &object) { parent in parent[last.name] = nil }
    }

    /// Gives every object of alternatives inside the chain that was left with none its default form, unless the mask
    /// names that object (or an ancestor) whole: then the body decides it, and an empty one is refused.
    private static func restoreAlternativesDefault(
        along chain: [ConfigField], in object: inout JSONObject, selection: MaskSelection
    ) {
        for (depth, field) in chain.enumerated().dropLast() {
            let groupPath = chain[...depth].map(\.name)
            guard let fallback = field.alternativesDefault, !selection.decidesWhole(groupPath) else { continue }
            changeExisting(groupPath[...], in: &object) { group in
                if !field.children.contains(where: { group.contains(key: $0.name) }) {
                    group = fallback
                }
            }
        }
    }

    /// Applies a change to the object at a path of keys, when every object on the way exists.
    private static func changeExisting(
        _ names: ArraySlice<String>, in object: inout JSONObject, _ change: (inout JSONObject) -> Void
    ) {
        guard let name = names.first else {
            change(&object)
            return
        }
        guard case .object(var child)? = object[name] else { return }
        changeExisting(names.dropFirst(), in: &child, change)
        object[name] = .object(child)
    }
}

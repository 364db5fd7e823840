/// Which fields an `updateMask` reaches, as key paths: the paths it names and every prefix of them.
struct MaskSelection {
    /// The paths the mask names.
    private let named: Set<[String]>
    /// The named paths and every prefix of each.
    private let touched: Set<[String]>

    /// The selection of resolved mask paths.
    init(_ chains: [[ConfigField]]) {
        let paths = chains.map { $0.map(\.name) }
        named = Set(paths)
        touched = Set(paths.flatMap { path in path.indices.map { Array(path[...$0]) } })
    }

    /// Whether the mask names this path or one of its ancestors, so the body decides all of it.
    func decidesWhole(_ path: [String]) -> Bool {
        path.indices.contains { named.contains(Array(path[...$0])) }
    }

    /// Whether the mask names this path, an ancestor of it, or anything inside it.
    func reaches(_ path: [String]) -> Bool {
        touched.contains(path) || decidesWhole(path)
    }
}

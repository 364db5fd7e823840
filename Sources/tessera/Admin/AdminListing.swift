import TesseraJSON

/// The lists the admin CLI prints as tables: where the entries are in a result and which columns matter most.
enum AdminListing: Sendable {
    case tenants
    case users
    case clients
    case adminKeys
    case auditEvents
    case factorServices

    /// The member of a list result holding the entries (API §5).
    var resultKey: String {
        switch self {
        case .tenants: "tenants"
        case .users: "users"
        case .clients: "clients"
        case .adminKeys: "keys"
        case .auditEvents: "events"
        case .factorServices: "factorServices"
        }
    }

    /// The column titles.
    var headers: [String] {
        switch self {
        case .tenants: ["TENANT ID", "DISPLAY NAME", "MFA"]
        case .users: ["LOCAL ID", "EMAIL", "VERIFIED", "DISABLED", "MFA"]
        case .clients: ["CLIENT ID", "NAME", "TYPE", "GRANT TYPES", "REDIRECT URIS"]
        case .adminKeys: ["KEY ID", "DISPLAY NAME", "SCOPE", "CREATED", "REVOKED"]
        case .auditEvents: ["TIME", "ACTOR", "METHOD", "TARGET"]
        case .factorServices: ["FACTOR ID", "DISPLAY NAME", "ENDPOINTS", "TIMEOUT MS", "UPDATED"]
        }
    }

    /// The cells of one entry. A tenant without its own MFA config shows `inherited`; a user's MFA column counts
    /// its enrolments. Audit events are read leniently (the first present of a few plausible member names).
    func row(_ entry: JSONValue) -> [String] {
        switch self {
        case .tenants:
            return [
                text(entry["tenantId"]), text(entry["displayName"]),
                entry["mfaConfig"]?["state"]?.stringValue ?? "inherited",
            ]
        case .users:
            return [
                text(entry["localId"]), text(entry["email"]), yesNo(entry["emailVerified"]), yesNo(entry["disabled"]),
                String(entry["mfaInfo"]?.arrayValue?.count ?? 0),
            ]
        case .clients:
            return [
                text(entry["clientId"]), text(entry["clientName"]), text(entry["type"]), list(entry["grantTypes"]),
                list(entry["redirectUris"]),
            ]
        case .adminKeys:
            let revoked = entry["revokedAt"]?.stringValue ?? "no"
            return [
                text(entry["keyId"]), text(entry["displayName"]), text(entry["scope"]), text(entry["createdAt"]),
                revoked,
            ]
        case .auditEvents:
            return [
                text(entry["time"]), text(entry["actorKeyId"]), text(entry["method"]), text(entry["target"]),
            ]
        case .factorServices:
            return [
                text(entry["factorId"]), text(entry["displayName"]), list(entry["endpoints"]),
                entry["timeoutMs"]?.intValue.map(String.init) ?? "", text(entry["updatedAt"]),
            ]
        }
    }

    /// The table of a list result, or a one-line message when it is empty; a `nextPageToken` adds a hint line.
    func lines(for result: JSONValue) -> [String] {
        let entries = result[resultKey]?.arrayValue ?? []
        var lines =
            entries.isEmpty
            ? ["no \(noun)"]
            : AdminTextFormat.table(headers: headers, rows: entries.map(row))
        if let token = result["nextPageToken"]?.stringValue, !token.isEmpty {
            lines.append("more: --page-token \(token) (or --all)")
        }
        return lines
    }

    private var noun: String {
        switch self {
        case .tenants: "tenants"
        case .users: "users"
        case .clients: "OAuth clients"
        case .adminKeys: "admin keys"
        case .auditEvents: "audit events"
        case .factorServices: "factor services"
        }
    }

    private func text(_ value: JSONValue?) -> String {
        AdminTextFormat.scalarText(value)
    }

    /// The strings of an array, comma-separated; `-` when there are none.
    private func list(_ value: JSONValue?) -> String {
        let items = (value?.arrayValue ?? []).compactMap(\.stringValue)
        return items.isEmpty ? "-" : items.joined(separator: ",")
    }

    private func yesNo(_ value: JSONValue?) -> String {
        value?.boolValue.map { $0 ? "yes" : "no" } ?? "-"
    }
}

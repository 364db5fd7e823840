import TesseraJSON

/// What `config set-mfa` was told, and how it becomes a whole MultiFactorAuthConfig (API §5).
///
/// Provider flags that were not given keep what the current config has: SMS stays on when `PHONE_SMS` is enabled,
/// TOTP stays on when an enabled `totpProviderConfig` exists, and its `adjacentIntervals` is kept unless a new
/// value is given. `--totp-adjacent-intervals` alone turns TOTP on. The entries of factor services that are not
/// named keep their state; `--factor-service ID` enables one, `--no-factor-service ID` disables it.
struct MultiFactorSettings: Equatable, Sendable {
    /// The MFA states of the contract.
    enum State: String, CaseIterable, Sendable {
        case disabled = "DISABLED"
        case enabled = "ENABLED"
        case mandatory = "MANDATORY"
    }

    var state: State
    /// `--phone-sms` (true), `--no-phone-sms` (false) or neither (nil: keep).
    var phoneSMS: Bool?
    /// `--totp` (true), `--no-totp` (false) or neither (nil: keep, unless intervals are given).
    var totp: Bool?
    /// `--totp-adjacent-intervals N`.
    var adjacentIntervals: Int?
    /// `--factor-service ID`, repeatable.
    var enabledFactorServices: [String] = []
    /// `--no-factor-service ID`, repeatable.
    var disabledFactorServices: [String] = []

    /// Refuses contradictory or out-of-range flags before anything is sent.
    func validate() throws(AdminUsageError) {
        if let both = enabledFactorServices.first(where: disabledFactorServices.contains) {
            throw AdminUsageError("--factor-service \(both) cannot be combined with --no-factor-service \(both)")
        }
        if let adjacentIntervals {
            guard (0...10).contains(adjacentIntervals) else {
                throw AdminUsageError("--totp-adjacent-intervals must be from 0 to 10")
            }
            guard totp != false else {
                throw AdminUsageError("--totp-adjacent-intervals cannot be combined with --no-totp")
            }
        }
    }

    /// The MFA config a tenant has now: its own `mfaConfig`, or when it has none the project's that it inherits
    /// (`effectiveMfaConfig` of `tenants.get`).
    static func currentConfig(ofTenant tenant: JSONValue) -> JSONValue? {
        if let own = tenant["mfaConfig"], !own.isNull { return own }
        return tenant["effectiveMfaConfig"]
    }

    /// The whole config to send, given the current one (`mfa` of the project, `mfaConfig` of a tenant; nil or
    /// `null` when there is none).
    func config(current: JSONValue?) -> JSONObject {
        let currentProviders = current?["enabledProviders"]?.arrayValue ?? []
        let phoneOn = phoneSMS ?? currentProviders.contains(.string("PHONE_SMS"))
        let currentTOTP = (current?["providerConfigs"]?.arrayValue ?? []).first { entry in
            entry["state"]?.stringValue == "ENABLED" && entry["totpProviderConfig"]?.objectValue != nil
        }
        let totpOn = totp ?? (adjacentIntervals != nil || currentTOTP != nil)

        var config: JSONObject = ["state": .string(state.rawValue)]
        var providerConfigs: [JSONValue] = []
        if phoneOn {
            config["enabledProviders"] = ["PHONE_SMS"]
        }
        if totpOn {
            var totpConfig = JSONObject()
            if let adjacentIntervals {
                totpConfig["adjacentIntervals"] = .integer(Int64(adjacentIntervals))
            } else if let kept = currentTOTP?["totpProviderConfig"]?["adjacentIntervals"] {
                totpConfig["adjacentIntervals"] = kept
            }
            providerConfigs.append(["state": "ENABLED", "totpProviderConfig": .object(totpConfig)])
        }
        var services: [String] = []
        var serviceStates: [String: String] = [:]
        for entry in current?["providerConfigs"]?.arrayValue ?? [] {
            guard let id = entry["factorServiceProviderConfig"]?["factorId"]?.stringValue else { continue }
            services.append(id)
            serviceStates[id] = entry["state"]?.stringValue ?? "DISABLED"
        }
        for id in enabledFactorServices + disabledFactorServices where serviceStates[id] == nil { services.append(id) }
        for id in enabledFactorServices { serviceStates[id] = "ENABLED" }
        for id in disabledFactorServices { serviceStates[id] = "DISABLED" }
        for id in services {
            providerConfigs.append([
                "state": .string(serviceStates[id] ?? "DISABLED"),
                "factorServiceProviderConfig": ["factorId": .string(id)],
            ])
        }
        if !providerConfigs.isEmpty {
            config["providerConfigs"] = .array(providerConfigs)
        }
        return config
    }
}

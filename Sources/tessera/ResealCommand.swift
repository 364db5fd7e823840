import ArgumentParser
import FactorServices
import FoundationEssentials
import MultiFactor
import TesseraCore
import TesseraCrypto
import TesseraPostgres
import TesseraServer

/// `tessera reseal`: the last step of a master-key rotation (docs/operations.md). Every long-lived secret at rest
/// (signing keys, the factors' enrolment states, the factor services' secrets) sealed under a previous master key
/// is sealed again under the current one, so the previous keys can then be dropped. Safe beside running servers,
/// and to run again: a second run re-seals nothing.
struct ResealCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reseal",
        abstract: "Seal the secrets at rest again under the current master key (a master-key rotation's last step).")

    @Option(help: "libpq connection string or URI (TESSERA_DATABASE_URL). Required.")
    var databaseURL: String?
    @Option(help: "File with the current 32-byte master key (TESSERA_MASTER_KEY_FILE). Required.")
    var masterKeyFile: String?
    @Option(
        help: "File with a master key of before the rotation; repeatable (TESSERA_PREVIOUS_MASTER_KEY_FILES).")
    var previousMasterKeyFile: [String] = []

    /// The owners of the tables whose secrets outlive a rotation, in the order they are re-sealed.
    static let tables: [any SealedSecretsTable] = [SigningKeySecrets(), EnrollmentSecrets(), FactorServiceSecrets()]

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        func value(_ option: String?, _ variable: String) -> String? {
            option ?? environment[variable].flatMap { $0.isEmpty ? nil : $0 }
        }
        guard let url = value(databaseURL, "TESSERA_DATABASE_URL") else {
            throw ValidationError("--database-url (or TESSERA_DATABASE_URL) is required")
        }
        guard let current = value(masterKeyFile, "TESSERA_MASTER_KEY_FILE") else {
            throw ValidationError("--master-key-file (or TESSERA_MASTER_KEY_FILE) is required: the key to seal under")
        }
        let previousFiles = try ServerConfiguration.previousMasterKeyFiles(
            previousMasterKeyFile, environment: environment, current: current)
        let keyRing = try SecretsKeyRing.make(
            masterKey: try MasterKey.load(fromFile: current), previous: try previousFiles.map(MasterKey.load(fromFile:))
        )
        try await withCommandDatabase(url: url) { database in
            do {
                for table in Self.tables {
                    let resealed = try await database.withPool { pool in
                        try await SealedSecrets.reseal(table, in: pool, keyRing: keyRing)
                    }
                    print("\(table.table) \(resealed)")
                }
            } catch {
                throw ValidationError("reseal failed: \(error)")
            }
        }
    }
}

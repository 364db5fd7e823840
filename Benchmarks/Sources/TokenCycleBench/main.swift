// Runs the database work of one authorize-plus-token cycle (../shared/bench/pg_token_cycle.sql) through
// TesseraPostgres, the way pgbench runs it: CLIENTS concurrent clients spread over the loops, each running
// the two statements of a cycle back to back, for SECONDS seconds. Prints one line:
// `cycles=N seconds=S rate=R p50_ms=A p99_ms=B`.
//
// Usage: TokenCycleBench DATABASE_URL [SECONDS=10] [CLIENTS=16] [LOOPS=2] [CONNECTIONS_PER_LOOP=8]
import FoundationEssentials
import Synchronization
import TesseraLoop
import TesseraPostgres

#if canImport(Glibc)
import Glibc
#endif

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    print("usage: TokenCycleBench DATABASE_URL [SECONDS] [CLIENTS] [LOOPS] [CONNECTIONS_PER_LOOP]")
    exit(2)
}
let url = arguments[1]
let seconds = arguments.count > 2 ? Int(arguments[2]) ?? 10 : 10
let clients = arguments.count > 3 ? Int(arguments[3]) ?? 16 : 16
let loops = arguments.count > 4 ? Int(arguments[4]) ?? 2 : 2
let connections = arguments.count > 5 ? Int(arguments[5]) ?? 8 : 8

let insertCode = """
    INSERT INTO codes VALUES (sha256(('c' || $1::text || ':' || $2::text || ':' || $3::text)::bytea), 'client', \
    gen_random_uuid(), 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', 'com.example.app:/cb', 'openid', \
    now() + interval '60 seconds')
    """
let consumeCode = """
    WITH c AS (DELETE FROM codes WHERE hash = sha256(('c' || $1::text || ':' || $2::text || ':' || $3::text)::bytea) \
    AND expires_at > now() RETURNING client_id, user_id) \
    INSERT INTO refresh_tokens SELECT sha256(('r' || $1::text || ':' || $2::text || ':' || $3::text)::bytea), \
    gen_random_uuid(), client_id, user_id, now() + interval '30 days' FROM c
    """

let group = try EventLoopGroup(loopCount: loops)
let client = PostgresClient(
    configuration: PostgresConfiguration(url: url, connectionsPerLoop: connections), group: group)
try await client.start()

/// One client's count of cycles and its latencies in microseconds.
struct ClientResult: Sendable {
    var cycles = 0
    var latencies: [Int] = []
}

let deadline = ContinuousClock.now + .seconds(seconds)
let started = ContinuousClock.now
let results = try await withThrowingTaskGroup(of: ClientResult.self) { tasks in
    for index in 0..<clients {
        let loop = group.loops[index % loops]
        tasks.addTask(executorPreference: loop) {
            let pool = client.pool(on: loop)
            var result = ClientResult()
            let clock = ContinuousClock()
            while clock.now < deadline {
                let begin = clock.now
                let first = String(Int.random(in: 1...2_000_000_000))
                let second = String(Int.random(in: 1...2_000_000_000))
                let parameters: [any PostgresEncodable] = [String(index), first, second]
                try await pool.query(insertCode, parameters)
                try await pool.query(consumeCode, parameters)
                let (s, atto) = (clock.now - begin).components
                result.latencies.append(Int(s) * 1_000_000 + Int(atto / 1_000_000_000_000))
                result.cycles += 1
            }
            return result
        }
    }
    var all: [ClientResult] = []
    for try await result in tasks { all.append(result) }
    return all
}
let elapsed = ContinuousClock.now - started
let total = results.reduce(0) { $0 + $1.cycles }
let latencies = results.flatMap(\.latencies).sorted()
func percentile(_ fraction: Double) -> Double {
    guard !latencies.isEmpty else { return 0 }
    return Double(latencies[min(latencies.count - 1, Int(Double(latencies.count) * fraction))]) / 1000
}
let elapsedSeconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
/// A number with three decimals.
func decimal(_ value: Double) -> String {
    let thousandths = Int((value * 1000).rounded())
    let fraction = String(thousandths % 1000)
    return "\(thousandths / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
}
let rate = Double(total) / elapsedSeconds
let p50 = percentile(0.5)
let p99 = percentile(0.99)
print(
    "cycles=\(total) seconds=\(decimal(elapsedSeconds)) rate=\(decimal(rate)) "
        + "p50_ms=\(decimal(p50)) p99_ms=\(decimal(p99))")
await client.shutdown()
group.shutdown()

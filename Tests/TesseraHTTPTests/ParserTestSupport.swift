import TesseraHTTP

/// A comparable summary of parser events.
enum Seen: Equatable, CustomStringConvertible {
    case started
    case headers(expectsContinue: Bool)
    case request(method: String, target: String, body: String)
    case failure(HTTPParseError)

    init(_ event: HTTPParserEvent) {
        switch event {
        case .requestStarted: self = .started
        case .headersComplete(let expectsContinue): self = .headers(expectsContinue: expectsContinue)
        case .request(let request):
            self = .request(
                method: request.method.description, target: request.target,
                body: String(decoding: request.body, as: UTF8.self)
            )
        case .failure(let failure): self = .failure(failure)
        }
    }

    var description: String {
        switch self {
        case .started: "started"
        case .headers(let expectsContinue): "headers(\(expectsContinue))"
        case .request(let method, let target, let body): "request(\(method) \(target) \(body.debugDescription))"
        case .failure(let failure): "failure(\(failure))"
        }
    }
}

/// Feeds `text` to a fresh parser, whole or in pieces of `chunkSize` bytes, and returns every event.
func parse(
    _ text: String, chunkSize: Int? = nil, configuration: HTTPServerConfiguration = HTTPServerConfiguration()
) -> [HTTPParserEvent] {
    let parser = HTTPRequestParser(configuration: configuration)
    return feed(parser, Array(text.utf8), chunkSize: chunkSize)
}

func feed(_ parser: HTTPRequestParser, _ bytes: [UInt8], chunkSize: Int? = nil) -> [HTTPParserEvent] {
    let size = chunkSize ?? max(bytes.count, 1)
    var events: [HTTPParserEvent] = []
    var start = 0
    while start < bytes.count {
        let end = min(start + size, bytes.count)
        events += parser.feed(Array(bytes[start..<end]))
        start = end
    }
    return events
}

func seen(_ events: [HTTPParserEvent]) -> [Seen] { events.map(Seen.init) }

func requests(_ events: [HTTPParserEvent]) -> [HTTPRequest] {
    events.compactMap { if case .request(let request) = $0 { request } else { nil } }
}

func failures(_ events: [HTTPParserEvent]) -> [HTTPParseError] {
    events.compactMap { if case .failure(let failure) = $0 { failure } else { nil } }
}

/// SplitMix64: the same numbers from the same seed on every run, so a test over many generated inputs fails the same
/// way each time.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

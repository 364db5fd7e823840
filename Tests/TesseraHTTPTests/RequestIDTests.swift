import Testing

@testable import TesseraHTTP

@Suite struct RequestIDTests {
    @Test func idsAreUniqueFixedWidthHexAndNotSequential() {
        let ids = (0..<10_000).map { _ in RequestID.make() }
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.count == 16 && $0.allSatisfy(\.isHexDigit) })
        let numbers = ids.prefix(100).compactMap { UInt64($0, radix: 16) }
        let steps = zip(numbers, numbers.dropFirst()).filter { $1 &- $0 == 1 }
        #expect(steps.isEmpty)
    }
}

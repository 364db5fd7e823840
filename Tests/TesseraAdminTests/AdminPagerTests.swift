import TesseraJSON
import Testing

@testable import tessera

/// Serves canned pages by token and records the pages asked for.
private actor PageSource {
    let pages: [String: JSONValue]
    var asked: [AdminCall.Page] = []

    init(_ pages: [String: JSONValue]) { self.pages = pages }

    func fetch(_ page: AdminCall.Page) -> JSONValue {
        asked.append(page)
        return pages[page.token ?? ""] ?? [:]
    }
}

@Suite struct AdminPagerTests {
    let pages: [String: JSONValue] = [
        "": ["users": [["localId": "u1"]], "nextPageToken": "p2"],
        "p2": ["users": [["localId": "u2"], ["localId": "u3"]], "nextPageToken": "p3"],
        "p3": ["users": [["localId": "u4"]], "nextPageToken": ""],
    ]

    @Test func allFollowsTheTokensAndMergesTheEntries() async throws {
        let source = PageSource(pages)
        let result = try await AdminPager.collect(.users, page: AdminCall.Page(size: 2), all: true) { page in
            await source.fetch(page)
        }
        #expect(result == ["users": [["localId": "u1"], ["localId": "u2"], ["localId": "u3"], ["localId": "u4"]]])
        #expect(
            await source.asked == [
                AdminCall.Page(size: 2), AdminCall.Page(size: 2, token: "p2"), AdminCall.Page(size: 2, token: "p3"),
            ])
    }

    @Test func withoutAllOnlyThePageAskedForIsFetched() async throws {
        let source = PageSource(pages)
        let result = try await AdminPager.collect(.users, page: AdminCall.Page(token: "p2"), all: false) { page in
            await source.fetch(page)
        }
        #expect(result == pages["p2"])
        #expect(await source.asked.count == 1)
    }

    @Test func aRepeatedTokenStopsTheLoop() async {
        let source = PageSource(["": ["users": [], "nextPageToken": "again"], "again": ["nextPageToken": "again"]])
        await #expect(throws: AdminFailure.refused("the server returned the page token again twice; stopping")) {
            try await AdminPager.collect(.users, page: AdminCall.Page(), all: true) { page in
                await source.fetch(page)
            }
        }
    }
}

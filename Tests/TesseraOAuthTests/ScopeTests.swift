import Testing

@testable import TesseraOAuth

struct ScopeTests {
    @Test func repeatsAreDroppedKeepingTheFirstOrder() {
        #expect(Scope([]).tokens == [])
        #expect(Scope(["openid"]).tokens == ["openid"])
        #expect(Scope(["openid", "email", "openid", "profile", "email"]).tokens == ["openid", "email", "profile"])
        #expect(Scope(["a", "b", "c"]).tokens == ["a", "b", "c"])
        // Longer lists than those compared token by token drop repeats the same way.
        let many = (0..<40).map { "s\($0 % 25)" }
        #expect(Scope(many).tokens == (0..<25).map { "s\($0)" })
        let edge = (0..<Scope.comparedTokens).map { "t\($0)" } + ["t0"]
        #expect(Scope(edge).tokens == (0..<Scope.comparedTokens).map { "t\($0)" })
    }

    @Test func textJoinsTheTokensWithSingleSpaces() throws {
        #expect(Scope([]).text == "")
        #expect(Scope(["openid"]).text == "openid")
        #expect(try Scope(parsing: "  openid   profile email openid ").text == "openid profile email")
        let long = (0..<30).map { "scope-\($0)" }
        #expect(Scope(long).text == long.joined(separator: " "))
    }

    @Test func parsingRefusesEmptyScopesAndForbiddenCharacters() {
        for text in ["", "   ", "open\"id", "a\\b", "caf\u{E9}"] {
            #expect(throws: OAuthError.self, "\(text)") { try Scope(parsing: text) }
        }
    }

    @Test func subsets() {
        #expect(Scope(["a", "b"]).isSubset(of: Scope(["b", "c", "a"])))
        #expect(!Scope(["a", "d"]).isSubset(of: Scope(["b", "c", "a"])))
        #expect(Scope([]).isSubset(of: Scope(["a"])))
    }
}

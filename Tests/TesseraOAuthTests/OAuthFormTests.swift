import TesseraHTTP
import Testing

@testable import TesseraOAuth

struct OAuthFormTests {
    @Test(arguments: [
        ("application/x-www-form-urlencoded", true),
        ("Application/X-WWW-Form-URLEncoded; charset=UTF-8", true),
        (" application/x-www-form-urlencoded\t;charset=utf-8", true),
        ("application/json", false),
        ("", false),
        ("application/x-www-form-urlencode", false),
        ("application/x-www-form-urlencodedx", false),
        ("multipart/form-data; boundary=x", false),
    ])
    func onlyFormBodiesAreAccepted(contentType: String, accepted: Bool) {
        #expect(OAuthForm.isForm(contentType: contentType) == accepted)
    }

    static func form(_ body: String) throws(OAuthError) -> OAuthForm {
        try OAuthForm(
            HTTPRequest(
                method: .post, target: "/oauth2/token",
                headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Array(body.utf8)))
    }

    @Test func valuesAreReadAndEmptyOnesAreAbsent() throws {
        let form = try Self.form("grant_type=authorization_code&code=abc%2Bd&scope=&redirect_uri=a+b")
        #expect(form["grant_type"] == "authorization_code")
        #expect(form["code"] == "abc+d")
        #expect(form["redirect_uri"] == "a b")
        #expect(form["scope"] == nil)
        #expect(form["missing"] == nil)
        #expect(throws: OAuthError.self) { try form.required("scope") }
        // Many fields, more than are compared name by name.
        let many = try Self.form((0..<40).map { "p\($0)=v\($0)" }.joined(separator: "&"))
        #expect(many["p0"] == "v0")
        #expect(many["p39"] == "v39")
    }

    /// RFC 6749 §3.2: a parameter must not appear twice, in a form of a few fields as in a long one.
    @Test func aRepeatedParameterIsInvalidRequest() {
        let bodies = [
            "code=a&code=b",
            "grant_type=x&code=a&redirect_uri=r&code=",
            (0..<40).map { "p\($0)=v" }.joined(separator: "&") + "&p7=again",
            "p7=first&" + (0..<40).map { "p\($0)=v" }.joined(separator: "&"),
        ]
        for body in bodies {
            #expect(throws: OAuthError.self, "\(body)") { try Self.form(body) }
            do {
                _ = try Self.form(body)
            } catch {
                #expect(error.code == .invalidRequest)
                #expect(error.detail.hasSuffix("appears more than once"), "\(error)")
            }
        }
        #expect(URLEncodedForm(fields: [("a", "1"), ("b", "2"), ("a", "3")]).firstRepeatedName == "a")
        #expect(URLEncodedForm(fields: [("a", "1"), ("b", "2")]).firstRepeatedName == nil)
        #expect(URLEncodedForm(fields: (0..<40).map { ("p\($0)", "") } + [("p3", "")]).firstRepeatedName == "p3")
        #expect(URLEncodedForm(fields: (0..<40).map { ("p\($0)", "") }).firstRepeatedName == nil)
    }

    @Test func scopeWordsSplitOnSpacesAndDropEmptyOnes() {
        #expect(Scope.words("  openid  email profile ") == ["openid", "email", "profile"])
        #expect(Scope.words("") == [])
        #expect(Scope.words("a\u{301} b") == ["a\u{301}", "b"])
    }
}

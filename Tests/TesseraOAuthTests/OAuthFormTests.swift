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

    @Test func scopeWordsSplitOnSpacesAndDropEmptyOnes() {
        #expect(Scope.words("  openid  email profile ") == ["openid", "email", "profile"])
        #expect(Scope.words("") == [])
        #expect(Scope.words("a\u{301} b") == ["a\u{301}", "b"])
    }
}

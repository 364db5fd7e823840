/// Convenience decoding of the parts of a request that handlers read most.
extension HTTPRequest {
    /// The query string as an ordered form; empty when the target has no query.
    public func queryItems() throws(PercentEncodingError) -> URLEncodedForm {
        guard let query else { return URLEncodedForm() }
        return try URLEncodedForm(parsing: query)
    }

    /// The body as an `application/x-www-form-urlencoded` form.
    public func formItems() throws(PercentEncodingError) -> URLEncodedForm {
        try URLEncodedForm(parsing: body)
    }

    /// Every cookie of every `Cookie` field, in order.
    public var cookies: [(name: String, value: String)] {
        headers.values(of: "Cookie").flatMap { HTTPCookies.parse($0) }
    }

    /// The first cookie of this name, if present.
    public func cookie(named name: String) -> String? {
        for field in headers.fields where HTTPHeaders.namesEqual(field.name, "Cookie") {
            if let value = HTTPCookies.value(named: name, in: field.value) { return value }
        }
        return nil
    }
}

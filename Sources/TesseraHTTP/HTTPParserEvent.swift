/// What an ``HTTPRequestParser`` found in the bytes it was fed, in the order it found it.
public enum HTTPParserEvent: Sendable {
    /// The first byte of a new request arrived: the header timer starts.
    case requestStarted
    /// The request's header section is complete: the header timer stops. `expectsContinue` is true when an
    /// HTTP/1.1 request sent `Expect: 100-continue` and has a body still to come.
    case headersComplete(expectsContinue: Bool)
    /// A whole request, body de-chunked.
    case request(HTTPRequest)
    /// The request could not be read; the parser accepts no more input after this.
    case failure(HTTPParseError)
}

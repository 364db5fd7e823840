import TesseraHTTP

/// A flow opened for this browser, with the forms of its pages.
struct OpenedFlow: Sendable {
    var flow: LoginFlow
    let flowID: String
    let forms: LoginForms
}

/// What opening a flow for a request gave: the flow, or the page that refuses the request.
enum FlowAccess: Sendable {
    case opened(OpenedFlow)
    case refused(HTTPResponse)
}

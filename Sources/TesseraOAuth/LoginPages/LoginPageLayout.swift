import TesseraCore
import TesseraHTTP

/// The frame of every login page: language, title, the stylesheet, one `<main>` with one `<h1>`. Works without
/// the stylesheet; runs no script, except the one page that asks for a proof of work (``LoginScript``). Texts are
/// given in English and written in the language of ``Texts/current``, which also sets `<html lang>`.
enum LoginPageLayout {
    /// A whole document titled `title` (plain text) around `content` (HTML), loading the pages' script when asked.
    static func document(title: LocalizedText, content: String, script: Bool = false) -> String {
        let texts = Texts.current
        let title = texts(title)
        let scriptTag = script ? #"<script src="\#(LoginResponse.scriptPath)" defer></script>"# : ""
        return """
            <!doctype html>
            <html lang="\(texts.language.rawValue)"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(HTML.escape(title))</title>
            <link rel="stylesheet" href="\(LoginResponse.stylesheetPath)">\(scriptTag)</head>
            <body><main id="main"><h1 id="page-title">\(HTML.escape(title))</h1>
            \(content)
            </main></body></html>
            """
    }

    /// A paragraph announced to assistive technology, for an error that belongs to no single field.
    static func alert(_ message: LocalizedText?, id: String = "form-error") -> String {
        guard let message else { return "" }
        return #"<p id="\#(id)" class="error" role="alert">\#(HTML.escape(Texts.current(message)))</p>"#
    }

    /// A paragraph with id `id` saying `text`.
    static func paragraph(_ text: LocalizedText, id: String) -> String {
        #"<p id="\#(id)">\#(HTML.escape(Texts.current(text)))</p>"#
    }

    /// The hidden inputs every form of a flow posts back.
    static func hiddenInputs(flowID: String, csrf: String) -> String {
        #"<input type="hidden" name="flow" value="\#(HTML.escape(flowID))">"#
            + #"<input type="hidden" name="csrf" value="\#(HTML.escape(csrf))">"#
    }

    /// A labelled input with its error (if any) next to it, tied by `aria-describedby`. `id` is also the input's
    /// name; it and `type` may come from a factor's declaration, so they are escaped as every text is.
    static func field(
        id: String, label: LocalizedText, type: String, autocomplete: String?, value: String? = nil,
        error: LocalizedText?, hint: LocalizedText? = nil, required: Bool = true, extra: String = ""
    ) -> String {
        let texts = Texts.current
        let (label, error, hint) = (texts(label), error.map { texts($0) }, hint.map { texts($0) })
        let id = HTML.escape(id)
        var described: [String] = []
        if hint != nil { described.append("\(id)-hint") }
        if error != nil { described.append("\(id)-error") }
        var attributes = #"id="\#(id)" name="\#(id)" type="\#(HTML.escape(type))""#
        if required { attributes += " required" }
        if let autocomplete { attributes += #" autocomplete="\#(HTML.escape(autocomplete))""# }
        if let value { attributes += #" value="\#(HTML.escape(value))""# }
        if !described.isEmpty { attributes += #" aria-describedby="\#(described.joined(separator: " "))""# }
        if error != nil { attributes += #" aria-invalid="true""# }
        if !extra.isEmpty { attributes += " " + extra }
        var html = #"<div class="field"><label for="\#(id)">\#(HTML.escape(label))</label>"#
        if let hint { html += #"<p id="\#(id)-hint" class="hint">\#(HTML.escape(hint))</p>"# }
        html += "<input \(attributes)>"
        if let error { html += #"<p id="\#(id)-error" class="error" role="alert">\#(HTML.escape(error))</p>"# }
        return html + "</div>"
    }
}

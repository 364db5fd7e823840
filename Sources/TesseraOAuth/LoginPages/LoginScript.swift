import TesseraHTTP

/// The only script of the login pages (`GET /oauth2/login.js`, the only script source the CSP allows): before a form
/// that asks for a proof of work (`data-pow-bits`, see ``LoginProofOfWork``) is sent, it finds the nonce with the
/// browser's own SHA-256 (`crypto.subtle`) and puts it in the form's `pow-nonce` input. Every other page works
/// without it.
enum LoginScript {
    static let javascript = """
        "use strict";
        (function () {
          function zeroBits(bytes) {
            var count = 0;
            for (var i = 0; i < bytes.length; i++) {
              if (bytes[i] === 0) { count += 8; continue; }
              for (var bit = 7; bit >= 0 && !(bytes[i] & (1 << bit)); bit--) count++;
              break;
            }
            return count;
          }
          function prove(form) {
            var bits = parseInt(form.getAttribute("data-pow-bits"), 10);
            var names = (form.getAttribute("data-pow-fields") || "").split(" ").filter(Boolean);
            var values = names.map(function (name) { return form.elements[name].value.trim(); });
            var prefix = form.getAttribute("data-pow-challenge") + "\\n" + values.join("\\n") + "\\n";
            var encoder = new TextEncoder();
            var nonce = 0;
            function batch() {
              var digests = [];
              for (var k = 0; k < 256; k++) {
                digests.push(crypto.subtle.digest("SHA-256", encoder.encode(prefix + (nonce + k))));
              }
              return Promise.all(digests).then(function (results) {
                for (var k = 0; k < results.length; k++) {
                  if (zeroBits(new Uint8Array(results[k])) >= bits) return String(nonce + k);
                }
                nonce += results.length;
                return batch();
              });
            }
            return batch();
          }
          document.querySelectorAll("form[data-pow-bits]").forEach(function (form) {
            form.addEventListener("submit", function (event) {
              if (form.getAttribute("data-pow-done") === "yes" || !window.crypto || !crypto.subtle) return;
              event.preventDefault();
              var buttons = form.querySelectorAll("button");
              buttons.forEach(function (button) { button.disabled = true; });
              var submitter = event.submitter;
              prove(form).then(function (nonce) {
                form.elements["pow-nonce"].value = nonce;
                form.setAttribute("data-pow-done", "yes");
                if (submitter && submitter.name) {
                  var pressed = document.createElement("input");
                  pressed.type = "hidden";
                  pressed.name = submitter.name;
                  pressed.value = submitter.value;
                  form.appendChild(pressed);
                }
                form.submit();
              });
            });
          });
        })();
        """

    /// The script response.
    static func response() -> HTTPResponse {
        var response = HTTPResponse(status: .ok, body: Array(javascript.utf8))
        response.headers.add(name: "Content-Type", value: "text/javascript; charset=utf-8")
        LoginResponse.protect(&response, redirectURI: nil)
        return response
    }
}

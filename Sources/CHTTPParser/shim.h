#ifndef TESSERA_CHTTPPARSER_SHIM_H
#define TESSERA_CHTTPPARSER_SHIM_H

#include <http_parser.h>

/* http_parser keeps these in bit-fields and behind macros; Swift gets plain accessors. */
static inline enum http_errno tessera_http_errno(const http_parser *parser) {
    return HTTP_PARSER_ERRNO(parser);
}
static inline unsigned int tessera_http_method(const http_parser *parser) { return parser->method; }
static inline unsigned int tessera_http_status(const http_parser *parser) { return parser->status_code; }
static inline unsigned int tessera_http_upgrade(const http_parser *parser) { return parser->upgrade; }
static inline unsigned short tessera_http_major(const http_parser *parser) { return parser->http_major; }
static inline unsigned short tessera_http_minor(const http_parser *parser) { return parser->http_minor; }
static inline uint64_t tessera_http_content_length(const http_parser *parser) { return parser->content_length; }
/* True when the message is chunked (Transfer-Encoding: chunked was seen). */
static inline int tessera_http_is_chunked(const http_parser *parser) { return (parser->flags & F_CHUNKED) != 0; }
/* True when Content-Length was seen in the headers. */
static inline int tessera_http_has_content_length(const http_parser *parser) { return (parser->flags & F_CONTENTLENGTH) != 0; }

#endif

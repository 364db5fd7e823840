#ifndef TESSERA_COPENSSL_SHIM_H
#define TESSERA_COPENSSL_SHIM_H

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/hmac.h>
#include <openssl/err.h>
#include <openssl/crypto.h>
#include <openssl/kdf.h>
#include <openssl/core_names.h>
#include <openssl/pem.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/bn.h>
#include <openssl/params.h>
#include <openssl/param_build.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

/* EVP_PKEY_PUBLIC_KEY is a macro combining selection bits; Swift cannot import it. */
static inline int tessera_evp_pkey_public_key_selection(void) {
    return EVP_PKEY_PUBLIC_KEY;
}

/*
 * OSSL_PARAM objects keep a pointer to their key name, so the names must outlive them; string literals of C
 * have static storage, temporary C strings made from Swift strings do not.
 */
static inline const char *tessera_param_group_name(void) {
    return OSSL_PKEY_PARAM_GROUP_NAME;
}

static inline const char *tessera_param_public_key(void) {
    return OSSL_PKEY_PARAM_PUB_KEY;
}

/* SSL_CTX_set_min_proto_version is a macro: refuses anything older than TLS 1.2 on a client context. */
static inline int tessera_ssl_ctx_require_tls12(SSL_CTX *context) {
    return (int)SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
}

/* SSL_set_tlsext_host_name is a macro: sets the server name sent in the ClientHello (SNI). */
static inline int tessera_ssl_set_server_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

#endif

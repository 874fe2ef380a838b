#ifndef KB_OSSL_SHIM_H
#define KB_OSSL_SHIM_H

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/err.h>
#include <openssl/rand.h>
#include <openssl/hmac.h>
#include <openssl/crypto.h>
#include <openssl/bio.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/md5.h>

// Function-like macros and parenthesised constants do not import into Swift; these wrap them.

static inline long kb_ossl_bio_get_mem_data(BIO *bio, char **data) {
    return BIO_get_mem_data(bio, data);
}

static inline int kb_ossl_err_get_reason(unsigned long code) {
    return ERR_GET_REASON(code);
}

static inline int kb_ossl_pkey_rsa(void) { return EVP_PKEY_RSA; }

static inline int kb_ossl_mbstring_utf8(void) { return MBSTRING_UTF8; }

static inline long kb_ossl_x509_version_3(void) { return X509_VERSION_3; }

// RSA public keys from a JWK's `n` and `e` (and back, for the stand-ins' JWKS): parameter names are string macros and
// the selection is a parenthesised expression; BN_num_bytes is function-like.
static inline const char *kb_ossl_param_rsa_n(void) { return OSSL_PKEY_PARAM_RSA_N; }

static inline const char *kb_ossl_param_rsa_e(void) { return OSSL_PKEY_PARAM_RSA_E; }

static inline int kb_ossl_selection_public_key(void) { return EVP_PKEY_PUBLIC_KEY; }

static inline int kb_ossl_bn_num_bytes(const BIGNUM *bn) { return BN_num_bytes(bn); }

// The default PEM password callback prompts on the terminal; a server must fail instead.
static inline int kb_ossl_no_password(char *buf, int size, int rwflag, void *userdata) {
    (void)buf; (void)size; (void)rwflag; (void)userdata;
    return -1;
}

static inline EVP_PKEY *kb_ossl_read_private_key(BIO *bio) {
    return PEM_read_bio_PrivateKey(bio, NULL, kb_ossl_no_password, NULL);
}

static inline EVP_PKEY *kb_ossl_read_pubkey(BIO *bio) {
    return PEM_read_bio_PUBKEY(bio, NULL, kb_ossl_no_password, NULL);
}

static inline X509 *kb_ossl_read_x509(BIO *bio) {
    return PEM_read_bio_X509(bio, NULL, kb_ossl_no_password, NULL);
}

// ES256 (LINE's ID tokens): P-256 keys from a JWK's `x` and `y`, and a fresh P-256 key for the stand-ins. The names are
// string macros and EVP_PKEY_Q_keygen is variadic; neither imports into Swift.
static inline const char *kb_ossl_param_group_name(void) { return OSSL_PKEY_PARAM_GROUP_NAME; }

static inline const char *kb_ossl_param_pub_key(void) { return OSSL_PKEY_PARAM_PUB_KEY; }

static inline int kb_ossl_pkey_ec(void) { return EVP_PKEY_EC; }

static inline EVP_PKEY *kb_ossl_p256_keygen(void) { return EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256"); }

#endif

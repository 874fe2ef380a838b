#ifndef KB_CCURL_SHIM_H
#define KB_CCURL_SHIM_H

// Swift cannot call C variadic functions nor import function-like macros, so every such entry point
// is re-exposed here as a typed, non-variadic static inline helper. Swift code calls only kb_curl_*
// for these and the plain (non-variadic) libcurl functions for everything else.
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>
// The multi_socket API leaves the waiting to the caller: CurlHTTP's loop thread waits in epoll on curl's sockets and
// on an eventfd that other threads signal. Glibc's Swift module does not carry these two headers.
#ifdef __linux__
#include <sys/epoll.h>
#include <sys/eventfd.h>
#endif

// Same shape as CURLOPT_WRITEFUNCTION / CURLOPT_HEADERFUNCTION callbacks.
typedef size_t (*kb_curl_data_callback)(char *ptr, size_t size, size_t nmemb, void *userdata);

// MARK: curl_easy_setopt

static inline CURLcode kb_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode kb_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode kb_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode kb_curl_easy_setopt_callback(CURL *handle, CURLoption option, kb_curl_data_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode kb_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode kb_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

// MARK: curl_easy_getinfo

static inline CURLcode kb_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode kb_curl_easy_getinfo_double(CURL *handle, CURLINFO info, double *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode kb_curl_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value) {
    return curl_easy_getinfo(handle, info, value);
}

// MARK: curl_multi_setopt

static inline CURLMcode kb_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

// Same shapes as CURLMOPT_SOCKETFUNCTION and CURLMOPT_TIMERFUNCTION callbacks (the multi_socket API).
typedef int (*kb_curl_socket_callback)(CURL *easy, curl_socket_t socket, int what, void *userp, void *socketp);
typedef int (*kb_curl_timer_callback)(CURLM *multi, long timeout_ms, void *userp);

static inline CURLMcode kb_curl_multi_setopt_pointer(CURLM *multi, CURLMoption option, void *value) {
    return curl_multi_setopt(multi, option, value);
}

static inline CURLMcode kb_curl_multi_setopt_socket_callback(CURLM *multi, kb_curl_socket_callback value) {
    return curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, value);
}

static inline CURLMcode kb_curl_multi_setopt_timer_callback(CURLM *multi, kb_curl_timer_callback value) {
    return curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, value);
}

static inline curl_socket_t kb_curl_socket_timeout(void) { return CURL_SOCKET_TIMEOUT; }
static inline int kb_curl_poll_in(void) { return CURL_POLL_IN; }
static inline int kb_curl_poll_out(void) { return CURL_POLL_OUT; }
static inline int kb_curl_poll_inout(void) { return CURL_POLL_INOUT; }
static inline int kb_curl_poll_remove(void) { return CURL_POLL_REMOVE; }
static inline int kb_curl_cselect_in(void) { return CURL_CSELECT_IN; }
static inline int kb_curl_cselect_out(void) { return CURL_CSELECT_OUT; }
static inline int kb_curl_cselect_err(void) { return CURL_CSELECT_ERR; }

// MARK: CURLMsg (its result lives in an anonymous-member union)

static inline CURLMSG kb_curl_msg_kind(const CURLMsg *message) { return message->msg; }
static inline CURL *kb_curl_msg_easy(const CURLMsg *message) { return message->easy_handle; }
static inline CURLcode kb_curl_msg_result(const CURLMsg *message) { return message->data.result; }

// MARK: macro values

static inline long kb_curl_global_all(void) { return CURL_GLOBAL_ALL; }
static inline size_t kb_curl_error_size(void) { return CURL_ERROR_SIZE; }
static inline unsigned int kb_curl_version_num(void) { return LIBCURL_VERSION_NUM; }

#endif

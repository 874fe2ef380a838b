#!/usr/bin/env bash
# Puts the shipped nginx site (deploy/nginx/kakao-bridge.conf) in front of the service and checks through it: the flow
# works, the real client address is logged, a forged X-Forwarded-For is ignored, no token reaches any log, /metrics
# and the hook are refused from outside the allowed network, the token exchange and the hook are never sent on to a
# second instance, and only the app's routes are rate-limited (per client). The certificate is made on the spot.
# Installs nginx, openssl and curl with apt-get when missing (as root or through sudo). Extra arguments go to swift test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup

missing=()
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
command -v curl >/dev/null 2>&1 || missing+=(curl)
if [ ${#missing[@]} -gt 0 ]; then
  echo "nginx-test: installing ${missing[*]}" >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "nginx-test: run as root or install: ${missing[*]}" >&2; exit 1; }
    SUDO="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  # nginx-light is gone from newer releases; plain nginx has every module the site uses.
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1 \
    || $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]/nginx-light/nginx}" >/dev/null
fi

# The distribution's nginx service is not needed (the test runs its own instance on free ports).
NGINX_TEST=1 swift test --filter OpsNginxTests "$@"

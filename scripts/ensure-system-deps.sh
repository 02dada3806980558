#!/usr/bin/env bash
# Installs the Debian packages the test suite needs when they are missing: as root with apt-get, otherwise it says
# what to install and fails. Chromium for the browser journeys, MariaDB for the API suite's second engine,
# poppler-utils, qpdf and libnss3-tools for checking signed PDFs, SoftHSMv2 and OpenSC's pkcs11-tool for the DSC
# tests (a software USB token), ffmpeg for the liveness videos (decoding them on the server, making the fake camera's),
# redis-server and nginx for the scale-out test (BullMQ, and the load balancer in front of two API nodes).
set -euo pipefail

declare -A NEED=(
  [chromium]=/usr/bin/chromium
  [mariadb-server]=/usr/sbin/mariadbd
  [poppler-utils]=/usr/bin/pdfsig
  [qpdf]=/usr/bin/qpdf
  [libnss3-tools]=/usr/bin/certutil
  [fonts-dejavu-core]=/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
  [softhsm2]=/usr/lib/softhsm/libsofthsm2.so
  [opensc]=/usr/bin/pkcs11-tool
  [ffmpeg]=/usr/bin/ffmpeg
  [redis-server]=/usr/bin/redis-server
  [nginx-light]=/usr/sbin/nginx
)
missing=()
for pkg in "${!NEED[@]}"; do
  [ -e "${NEED[$pkg]}" ] || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "npm test needs these Debian packages: ${missing[*]}" >&2
  echo "Install them with: sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
  exit 1
fi
echo "Installing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# The packaged services are not used (the tests start their own servers on free ports); keep them from holding
# 3306, 6379 and 80.
if command -v service >/dev/null 2>&1; then
  for svc in mariadb redis-server nginx; do service "$svc" stop >/dev/null 2>&1 || true; done
fi
for pkg in "${missing[@]}"; do
  [ -e "${NEED[$pkg]}" ] || { echo "Installing $pkg did not provide ${NEED[$pkg]}" >&2; exit 1; }
done

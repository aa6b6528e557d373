#!/usr/bin/env bash
# Installs what killpoint needs to build and test, from Debian's packages only.
# Idempotent: apt-get update runs once, and only when something is missing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config python3 sqlite3 curl  # curl: tests/corpus's bash job
  libboost-dev libboost-filesystem-dev
  libsqlite3-dev libsqlitecpp-dev nlohmann-json3-dev
  librapidcheck-dev libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev libcpp-httplib-dev libfmt-dev
  libssl-dev zlib1g-dev libbrotli-dev  # headers cpp-httplib's compiled flags need
  clang-format  # scripts/check-format.sh, the ctest `format`
  git  # the command checks' e2e test runs `git fsck` (tests/fixtures/command-checks)
  clang libclang-rt-14-dev  # scripts/sanitize.sh's builds (clang's sanitizer runtimes), scripts/fuzz.sh
  postgresql libpq-dev python3-psycopg2  # the postgres service (docs/services.md)
  mariadb-server libmariadb-dev python3-pymysql  # the mariadb service
  rabbitmq-server librabbitmq-dev python3-pika erlang-base  # the rabbitmq service (erlang-base: erl_call)
  redis-server libhiredis-dev python3-redis  # the redis service (docs/services.md)
  python3-yaml  # tests/ci: the CI configurations' steps read from their YAML
  dpkg-dev binutils  # cpack -G DEB's Depends (dpkg-shlibdeps, objdump) and strip: package_deb
  libfuse3-dev fuse3  # bench/intercept/fuse_pass.c (scripts/bench-intercept.sh): libfuse3, fusermount3
  golang-go rustc python3-lmdb  # tests/foreign's Go, Rust and LMDB jobs (tests/foreign/README.md)
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"

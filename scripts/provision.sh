#!/usr/bin/env bash
# What the tests need on a Debian machine, provisioned when missing: `npm test` runs this first (its pretest),
# and .ci/run runs it with --toolchain before `npm ci`. It needs no package of npm's, so it runs on a bare machine.
#
#   scripts/provision.sh              install what the tests need and is missing (curl for the quick-start test,
#                                     Debian's Chromium for the browser tests, PostgreSQL, Redis, and for the
#                                     Python SDK's tests Debian's python3-httpx, -pydantic, -pytest,
#                                     -pytest-asyncio, -mypy and -venv), then start
#                                     PostgreSQL (trusting 127.0.0.1) and Redis when they are not running
#   scripts/provision.sh --toolchain  install what `npm ci` needs to compile better-sqlite3's addon when no
#                                     prebuilt binary matches (g++, make, python3)
#   add --check                       only say what would be done, one line each; exit 1 when anything would be
#
# When everything is there it says nothing and takes a few milliseconds. It installs with apt-get as root, or
# through `sudo -n` when that works; otherwise it stops with one line naming the packages and the command.
# PROVISION_CHROMIUM is where the browser tests look for Chromium (they drive /usr/bin/chromium), and
# PROVISION_PYTHON the interpreter the Python SDK's tests run (/usr/bin/python3, Debian's own); the provisioning
# test points them at missing files.
set -euo pipefail

check=no
toolchain=no
for arg in "$@"; do
  case "$arg" in
    --check) check=yes ;;
    --toolchain) toolchain=yes ;;
    *) echo "scripts/provision.sh: unknown argument $arg (use --check, --toolchain)" >&2; exit 2 ;;
  esac
done

missing=()
has() { command -v "$1" >/dev/null 2>&1; }
# A TCP connection that opens: something listens there. Bash's own /dev/tcp, so no client is needed.
listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

if [ "$toolchain" = yes ]; then
  has g++ || missing+=(g++)
  has make || missing+=(make)
  has python3 || missing+=(python3)
else
  # The serve test runs the printed curl line exactly as a user would.
  has curl || missing+=(curl)
  # playwright-core never downloads a browser: the dashboard and reference tests drive Debian's Chromium.
  chromium=${PROVISION_CHROMIUM:-/usr/bin/chromium}
  [ -f "$chromium" ] && [ -x "$chromium" ] || missing+=(chromium)
  # The Python SDK's tests run Debian's python3 with Debian's packages of what they import (each package with
  # its module; python3-venv brings ensurepip, which the documented `python3 -m venv` needs). find_spec looks a
  # module up without importing it, so this costs one interpreter start.
  python=${PROVISION_PYTHON:-/usr/bin/python3}
  modules=(httpx:python3-httpx pydantic:python3-pydantic pytest:python3-pytest pytest_asyncio:python3-pytest-asyncio mypy:python3-mypy ensurepip:python3-venv)
  absent=$("$python" -c 'import importlib.util, sys; print(" ".join(m for m in sys.argv[1:] if importlib.util.find_spec(m) is None))' "${modules[@]%%:*}" 2>/dev/null) || absent="${modules[*]%%:*}"
  for pair in "${modules[@]}"; do
    case " $absent " in *" ${pair%%:*} "*) missing+=("${pair#*:}") ;; esac
  done
  has pg_ctlcluster || missing+=(postgresql)
  has redis-server || missing+=(redis-server)
fi

# Installing packages and starting PostgreSQL take root: this process's, or sudo's when it asks for no password
# (asked only when there is something to do). Sets as_root to the prefix, or to "none".
find_root() {
  if [ "$(id -u)" = 0 ]; then
    as_root=()
  elif has sudo && sudo -n true 2>/dev/null; then
    as_root=(sudo -n)
  else
    as_root=(none)
  fi
}

if [ ${#missing[@]} -gt 0 ]; then
  find_root
  if [ "$check" = yes ]; then
    echo "would install: ${missing[*]} (apt-get)"
  elif [ "${as_root[*]}" = none ]; then
    echo "The tests need ${missing[*]}: run \`sudo apt-get install -y ${missing[*]}\` (or npm test as root), then npm test again." >&2
    exit 1
  else
    echo "Installing ${missing[*]} for the tests (apt-get)." >&2
    "${as_root[@]}" apt-get update -qq
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
fi
if [ "$toolchain" = yes ]; then
  [ "$check" = yes ] && [ ${#missing[@]} -gt 0 ] && exit 1
  exit 0
fi

todo=${#missing[@]}

# PostgreSQL: the tests connect as postgres over TCP without a password (trust) at 127.0.0.1:5432.
if ! listening 5432; then
  todo=$((todo + 1))
  if [ "$check" = yes ]; then
    echo "would start: PostgreSQL at 127.0.0.1:5432 (trusting 127.0.0.1)"
  else
    cluster=$(ls /etc/postgresql | sort -V | tail -n 1)
    hba=/etc/postgresql/$cluster/main/pg_hba.conf
    find_root
    if [ "${as_root[*]}" = none ]; then
      echo "PostgreSQL is not running at 127.0.0.1:5432: run \`sudo pg_ctlcluster $cluster main start\` (with \`host all all 127.0.0.1/32 trust\` first in $hba), or npm test as root." >&2
      exit 1
    fi
    "${as_root[@]}" grep -q '^host all all 127.0.0.1/32 trust' "$hba" || "${as_root[@]}" sed -i '1i host all all 127.0.0.1/32 trust' "$hba"
    "${as_root[@]}" pg_ctlcluster --skip-systemctl-redirect "$cluster" main start
    for _ in $(seq 1 30); do listening 5432 && break; sleep 1; done
    listening 5432 || { echo "PostgreSQL $cluster did not start at 127.0.0.1:5432: see /var/log/postgresql/." >&2; exit 1; }
  fi
fi

# Redis at 127.0.0.1:6379, in memory only: the tests share rate limits and live feeds through it.
if ! listening 6379; then
  todo=$((todo + 1))
  if [ "$check" = yes ]; then
    echo "would start: Redis at 127.0.0.1:6379"
  else
    redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no >/dev/null
    for _ in $(seq 1 30); do listening 6379 && break; sleep 1; done
    listening 6379 || { echo "Redis did not start at 127.0.0.1:6379." >&2; exit 1; }
  fi
fi

[ "$check" = yes ] && [ "$todo" -gt 0 ] && exit 1
exit 0

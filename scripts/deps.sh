#!/usr/bin/env bash
# Installs what building, running and testing Tessera needs, and only what is missing.
#
# Debian packages are checked with one dpkg-query; `apt-get update` runs once, and only
# when something must be installed. Python modules for the end-to-end tests are checked
# by importing them and installed with pip only when the import fails. With everything
# present this takes a fraction of a second, so CI runs it every time.
#
# Environment: DEB_PACKAGES and PYTHON_PACKAGES replace the lists below (space separated;
# a Python entry is `module` or `module=pip-name`). DEPS_DRY_RUN=1 only reports what
# would be installed.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# pkg-config lets SwiftPM find libuv, OpenSSL and libpq; libmimalloc-dev is the executable's allocator
# (docs/operations.md, "Memory allocator"); python3-pip is how the Python
# modules arrive when they are missing; chromium and its WebDriver run the browser tests
# of the login pages (driven by selenium), and fonts-ipafont-gothic gives it the Japanese
# glyphs of their screenshots in `ja`; curl is in `make demo`'s printed command; matplotlib
# draws the plot of the OAuth load test (make bench); kubernetes-validate checks
# deploy/kubernetes against the Kubernetes schemas it carries (no cluster, no network);
# haproxy fronts the three servers of the fleet test (make fleet-test); valgrind counts the instructions of the token
# path's steps (make bench-steps); linux-perf counts the server's allocations under load (make bench-allocs).
DEFAULT_DEB_PACKAGES="libuv1-dev libssl-dev libpq-dev libhttp-parser-dev libqrencode-dev libmimalloc-dev pkg-config
postgresql postgresql-contrib wrk curl python3 python3-pip chromium chromium-driver fonts-ipafont-gothic haproxy
valgrind linux-perf"
DEFAULT_PYTHON_PACKAGES="requests pytest pyotp authlib selenium matplotlib kubernetes_validate=kubernetes-validate"

deb_list=${DEB_PACKAGES:-$DEFAULT_DEB_PACKAGES}
python_list=${PYTHON_PACKAGES:-$DEFAULT_PYTHON_PACKAGES}
read -r -a deb_packages <<<"${deb_list//$'\n'/ }"
read -r -a python_packages <<<"${python_list//$'\n'/ }"
dry_run=${DEPS_DRY_RUN:-0}

# Runs a command as root: directly when we are root, else through sudo.
as_root() {
    if ((EUID == 0)); then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        die "installing needs root: run as root or install sudo (wanted: $*)"
    fi
}

# Prints the Debian packages of "$@" that are not installed.
missing_deb_packages() {
    # dpkg-query prints nothing for a package it has never heard of, so compare against the list.
    local installed
    installed=$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "$@" 2>/dev/null \
        | awk '$2 == "installed" { print $1 }') || true
    local package
    for package in "$@"; do
        grep -qx -- "$package" <<<"$installed" || printf '%s\n' "$package"
    done
}

install_deb_packages() {
    local missing
    mapfile -t missing < <(missing_deb_packages "${deb_packages[@]}")
    ((${#missing[@]} > 0)) || return 0
    say "missing Debian packages: ${missing[*]}"
    ((dry_run)) && return 0
    export DEBIAN_FRONTEND=noninteractive
    as_root apt-get update -qq
    as_root apt-get install -y -qq --no-install-recommends "${missing[@]}"
    local still_missing
    still_missing=$(missing_deb_packages "${missing[@]}")
    [[ -z $still_missing ]] || die "apt-get did not install: $still_missing"
}

# Prints the pip names of the Python modules that cannot be imported.
missing_python_packages() {
    python3 - "$@" <<'PY'
import importlib.util, sys

for entry in sys.argv[1:]:
    module, _, pip_name = entry.partition("=")
    if importlib.util.find_spec(module) is None:
        print(pip_name or module)
PY
}

install_python_packages() {
    command -v python3 >/dev/null 2>&1 || die "python3 is missing (it is in DEB_PACKAGES; did apt-get fail?)"
    local missing
    mapfile -t missing < <(missing_python_packages "${python_packages[@]}")
    ((${#missing[@]} > 0)) || return 0
    say "missing Python packages: ${missing[*]}"
    ((dry_run)) && return 0
    python3 -m pip --version >/dev/null 2>&1 || die "pip is missing for $(command -v python3)"
    export PIP_ROOT_USER_ACTION=ignore
    local output
    if ! output=$(python3 -m pip install --quiet "${missing[@]}" 2>&1); then
        # Debian's own python3 is "externally managed" (PEP 668); this machine's tests are
        # the only user of these modules, so install them anyway.
        if grep -q externally-managed-environment <<<"$output"; then
            python3 -m pip install --quiet --break-system-packages "${missing[@]}"
        else
            printf '%s\n' "$output" >&2
            die "pip could not install: ${missing[*]}"
        fi
    fi
    local still_missing
    still_missing=$(missing_python_packages "${python_packages[@]}")
    [[ -z $still_missing ]] || die "after pip install these still do not import: $still_missing"
}

install_deb_packages
install_python_packages

#!/usr/bin/env bash
# CI for the VS Code extension: installs what its tests need, then lint,
# typecheck, the unit + protocol + webview tests, the .vsix, and the
# code-server smoke test. Called from .ci/run; also fine to run by hand.
#
# Needs: Node 20+ with npm, Go (for the backend the tests build), JDK 17
# (javac/java). Installs when missing: Debian chromium, build-essential,
# libkrb5-dev (code-server's native modules). The code-server install is
# cached under ${DDMBRIDGE_E2E_CACHE:-$HOME/.cache/ddmbridge-e2e}.
set -euo pipefail
cd "$(dirname "$0")/.."

export PATH="/usr/local/go/bin:$PATH"

step() { printf '\n==> %s\n' "$*"; }

as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	elif command -v sudo >/dev/null; then
		sudo "$@"
	else
		echo "need root to run: $*" >&2
		return 1
	fi
}

step "install missing tools"
packages=()
[ -x /usr/bin/chromium ] || packages+=(chromium)
dpkg -s build-essential >/dev/null 2>&1 || packages+=(build-essential)
dpkg -s libkrb5-dev >/dev/null 2>&1 || packages+=(libkrb5-dev)
command -v javac >/dev/null || packages+=(openjdk-17-jdk-headless)
if [ "${#packages[@]}" -gt 0 ]; then
	echo "installing: ${packages[*]}"
	as_root apt-get update
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${packages[@]}"
fi
node --version
go version
javac -version

step "npm ci"
npm ci --no-audit --no-fund

step "lint"
npm run lint

step "typecheck"
npm run typecheck

step "npm test (unit, protocol, webview)"
npm test

step "npm run package"
npm run package
ls -l ddmbridge.vsix

step "npm run test:e2e (code-server in headless Chromium)"
npm run test:e2e

step "ok"

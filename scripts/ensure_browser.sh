#!/usr/bin/env bash
# Make sure Playwright can drive a Chromium and that Chinese text renders.
# Idempotent: does nothing when both are already in place. Order of preference for the
# browser: a system Chromium/Chrome on PATH (or $MGB_CHROMIUM), then Debian's `chromium`
# package (when root with apt-get), then Playwright's own download.
set -euo pipefail
python=${1:-.venv/bin/python}

have_browser() {
    [ -n "${MGB_CHROMIUM:-}" ] && [ -x "${MGB_CHROMIUM}" ] && return 0
    for b in chromium chromium-browser google-chrome google-chrome-stable; do
        command -v "$b" >/dev/null 2>&1 && return 0
    done
    compgen -G "${PLAYWRIGHT_BROWSERS_PATH:-$HOME/.cache/ms-playwright}/chromium*" >/dev/null 2>&1
}

have_cjk_font() {
    command -v fc-list >/dev/null 2>&1 && [ -n "$(fc-list :lang=zh 2>/dev/null | head -n 1)" ]
}

can_apt() {
    [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1
}

apt_updated=0
apt_install() {
    if [ "$apt_updated" = 0 ]; then
        echo "ensure_browser: apt-get update" >&2
        DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
        apt_updated=1
    fi
    echo "ensure_browser: apt-get install $*" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

if ! have_browser; then
    if can_apt; then
        apt_install chromium
    else
        echo "ensure_browser: no system Chromium; downloading Playwright's" >&2
        "$python" -m playwright install chromium
    fi
fi

if ! have_cjk_font; then
    if can_apt; then
        apt_install fonts-noto-cjk fontconfig
    else
        echo "ensure_browser: WARNING no CJK font found and cannot install one;" \
             "Chinese text will render as empty boxes. Install fonts-noto-cjk." >&2
    fi
fi

#!/usr/bin/env bash
# Debian packages the project needs beyond Python: Chromium (headless screenshots of the HTML
# report in the tests), poppler-utils (pdftoppm, to render the PDF report's pages in the tests)
# and Pango (WeasyPrint's text layout, for the PDF report). Installs only what is missing.
# Usage: setup-system.sh [run|test]   (run: only what writing a report needs)
set -euo pipefail
need=()
if [ "${1:-test}" = "test" ]; then
  command -v chromium >/dev/null 2>&1 || need+=(chromium)
  command -v pdftoppm >/dev/null 2>&1 || need+=(poppler-utils)
fi
ldconfig -p 2>/dev/null | grep -q libpango-1.0 || need+=(libpango-1.0-0 libpangoft2-1.0-0)
fc-list 2>/dev/null | grep -qi dejavu || need+=(fonts-dejavu-core)
if [ ${#need[@]} -eq 0 ]; then exit 0; fi
echo "installing Debian packages: ${need[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null

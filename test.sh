#!/usr/bin/env bash
# test.sh: the project's test command (README, "Set-up").
#
#   ./test.sh          go test -short ./... : every package's quick tests, every bundled
#                      scenario's results byte-compared with its golden document (about two
#                      minutes on an idle 2-core machine)
#   ./test.sh --full   go test ./... : besides, every figure rendered and checked, every
#                      bundled scenario rerun on one and two threads, the 1,024-host fabrics,
#                      headless Chromium, the long physics runs (.ci/run runs this)
#
# Any other arguments go to go test. Both set an explicit -timeout sized for a loaded machine
# (a busy 2-core machine takes several times the idle figures; go test's default is 10m).
#
# The capture tests read the pcap files with tshark, the report test opens report.html in
# headless Chromium and the figure test renders the PDF plots with poppler's pdftoppm; each
# fails, not skips, when its tool is missing. So on a Debian machine this installs Debian's
# tshark, chromium and poppler-utils when they are not there and it may (as root, or
# with sudo that asks no password), then runs the tests with any arguments given.
# Where it may not install them, it says what to install and runs the tests anyway: the two
# groups of tests then fail and say why.
set -euo pipefail
cd "$(dirname "$0")"

missing=()
command -v tshark >/dev/null 2>&1 || missing+=(tshark)
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v pdftoppm >/dev/null 2>&1 || missing+=(poppler-utils)

if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      sudo="sudo"
    else
      sudo="none"
    fi
  fi
  if [ "$sudo" = "none" ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "test.sh: ${missing[*]} not installed, and this user cannot install them here" >&2
    echo "test.sh: on Debian, as root: apt-get install ${missing[*]}; the capture, report and figure tests will fail without them" >&2
  else
    echo "test.sh: installing Debian's ${missing[*]} (the capture, report and figure tests need them)" >&2
    # tshark's package asks whether non-root users may capture: answer no, without a prompt.
    echo "wireshark-common wireshark-common/install-setuid boolean false" | $sudo debconf-set-selections
    $sudo apt-get update -q
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
  fi
fi

mode=(-short -timeout 30m)
if [ "${1:-}" = "--full" ]; then
  shift
  mode=(-timeout 60m)
fi
go test "${mode[@]}" ./... "$@"

#!/usr/bin/env bash
# Gate a candidate run against a frozen baseline run and write the reports a reviewer opens.
#
#   examples/ci/gate.sh BASELINE_RUN CANDIDATE_RUN [OUT_DIR]
#
# Exit 0 when the gate passes or warns (a warning is printed as a GitHub Actions annotation), 4 when it blocks,
# anything else when the gate could not judge (bad input, an unreadable run). With TRIAGE_RERUNS=N (N > 0), the
# regressions of a blocked or warned comparison are rerun N times first, so the reports label each one
# reproduced, flaky or not reproduced.
set -uo pipefail
baseline=${1:?usage: gate.sh BASELINE_RUN CANDIDATE_RUN [OUT_DIR]}
candidate=${2:?usage: gate.sh BASELINE_RUN CANDIDATE_RUN [OUT_DIR]}
out=${3:-hindcast-report}
mkdir -p "$out"

runner report "$candidate" --html "$out/report.html" > "$out/report.txt" || exit $?
runner compare --baseline "$baseline" --candidate "$candidate" --json > "$out/compare.json"
code=$?
if [ "$code" -eq 2 ] || [ "$code" -eq 4 ]; then
  if [ "${TRIAGE_RERUNS:-0}" -gt 0 ]; then
    runner triage --baseline "$baseline" --candidate "$candidate" --reruns "$TRIAGE_RERUNS" > "$out/triage.txt" \
      || echo "::warning title=Hindcast triage::runner triage exited $?; the regressions are not labelled"
  fi
fi
runner compare --baseline "$baseline" --candidate "$candidate" --html "$out/compare.html" | tee "$out/compare.txt"
code=${PIPESTATUS[0]}
case $code in
  0) echo "Hindcast gate: PASS" ;;
  2) echo "::warning title=Hindcast gate::WARN: a person should look before merging (compare.html)"; code=0 ;;
  4) echo "::error title=Hindcast gate::BLOCK: the candidate is worse than the baseline (compare.html)" ;;
  *) echo "::error title=Hindcast gate::runner compare could not judge (exit $code)" ;;
esac
exit "$code"

# shellcheck shell=bash
# Sourced by .ci/run and .ci/lane-b. stage NAME COMMAND...: runs one step and records its wall-clock seconds. The
# table of every stage run so far (stage_table TITLE) is printed when the script exits, also on a failure or an
# interrupt (then the stage that was running is the last row). A failing stage stops the script (set -e).
stage_rows=()
stage_name=""
stage_start=0
stage_t0=$SECONDS
stage() {
  local rc=0
  stage_name=$1 stage_start=$SECONDS
  shift
  echo "::: stage ${stage_name}: $*" >&2
  "$@" || rc=$?
  stage_rows+=("$(printf '%-40s %6d s  %s' "$stage_name" $((SECONDS - stage_start)) \
    "$( ((rc == 0)) && echo ok || echo "FAILED (exit $rc)")")")
  stage_name=""
  return "$rc"
}
# stage_table TITLE: prints the table, with this script's total; call it first in an EXIT trap (it reads $?).
stage_table() {
  local rc=$? row
  if [ -n "$stage_name" ]; then
    stage_rows+=("$(printf '%-40s %6d s  %s' "$stage_name" $((SECONDS - stage_start)) "interrupted")")
  fi
  {
    echo "::: $1 (wall-clock seconds)"
    for row in "${stage_rows[@]}"; do echo "    $row"; done
    printf '    %-40s %6d s  %s\n' "total" $((SECONDS - stage_t0)) "$( ((rc == 0)) && echo ok || echo "exit $rc")"
  } >&2
  return "$rc"
}

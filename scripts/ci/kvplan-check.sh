#!/usr/bin/env bash
# The CI step (docs/ci.md): `kvplan check` on every file that matches the given glob patterns,
# one JUnit report and one Markdown summary for them all. The GitHub action
# (scripts/ci/github/action.yml) and the GitLab template (scripts/ci/gitlab/) only install kvplan
# and call this script; the project's own CI runs it in scripts/test.sh.
#
#   scripts/ci/kvplan-check.sh [--kvplan PATH] [--out DIR] [--summary FILE] [--] PATTERN...
#
#   PATTERN     a file or a bash glob (quote it: 'deploy/**/*.yaml'; ** crosses folders); every
#               matching file is checked once, in the order matched. A pattern that matches no
#               file is an error (exit 2): a CI step that checks nothing must not pass.
#   --kvplan    the kvplan binary (default: $KVPLAN, else `kvplan` on PATH)
#   --out       where the reports go (default: kvplan-check), created if missing:
#                 DIR/kvplan-check.xml   JUnit, one <testsuite> per deployment (an invalid file is
#                                        one testsuite with an <error> naming kvplan's message)
#                 DIR/kvplan-check.md    the Markdown summary: one line per file (result, failed
#                                        checks, the fixes kvplan names), then each file's checks
#                 DIR/files/NNN-NAME.*   each file's own reports (.xml, .md) and stderr (.err)
#   --summary   also append the Markdown summary to FILE (GitHub: "$GITHUB_STEP_SUMMARY"); past
#               1,000,000 bytes, only its table (GitHub's job summaries stop at 1 MiB)
#
# Exit status, after every report is written: the worst of the files' `kvplan check` results:
# 0 all passed, 1 a deployment failed a check, 2 a file is invalid (or a pattern matched nothing,
# or a usage error), 3 kvplan failed otherwise (internal error, crash, no report). Needs bash,
# coreutils, sed and awk only, so it runs where only the kvplan package is installed.
set -uo pipefail
shopt -s nullglob globstar

prog="kvplan-check"
usage() {
  sed -n '7,8p' "$0" | sed 's/^# *//' >&2
  exit 2
}
die() {  # die CODE MESSAGE
  echo "$prog: error: $2" >&2
  exit "$1"
}

kvplan=${KVPLAN:-kvplan}
out="kvplan-check"
summary=""
patterns=()
while [ $# -gt 0 ]; do
  case $1 in
    --kvplan) [ $# -ge 2 ] || usage; kvplan=$2; shift 2 ;;
    --kvplan=*) kvplan=${1#*=}; shift ;;
    --out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
    --out=*) out=${1#*=}; shift ;;
    --summary) [ $# -ge 2 ] || usage; summary=$2; shift 2 ;;
    --summary=*) summary=${1#*=}; shift ;;
    -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --) shift; patterns+=("$@"); break ;;
    -*) echo "$prog: error: unknown option '$1'" >&2; usage ;;
    *) patterns+=("$1"); shift ;;
  esac
done
[ ${#patterns[@]} -gt 0 ] || { echo "$prog: error: no file patterns given" >&2; usage; }
command -v "$kvplan" >/dev/null 2>&1 || die 2 "kvplan binary '$kvplan' not found (--kvplan PATH)"
kvplan=$(command -v "$kvplan")
mkdir -p "$out/files" || die 2 "$out: cannot create the report folder"
rm -f "$out"/files/* "$out/kvplan-check.xml" "$out/kvplan-check.md"

xml_escape() { sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/"/\&quot;/g' | tr -d '\000-\010\013\014\016-\037'; }
xml_unescape() { sed -e 's/&lt;/</g' -e 's/&gt;/>/g' -e 's/&quot;/"/g' -e "s/&apos;/'/g" -e 's/&amp;/\&/g'; }
md_cell() { tr '\n' ' ' | sed -e 's/|/\\|/g' -e 's/ *$//'; }

# Expand the patterns: every file once, in the order matched.
files=()
declare -A seen=()
unmatched=()
for p in "${patterns[@]}"; do
  # Unquoted on purpose: pathname expansion only (IFS is a newline, so no splitting at spaces);
  # with nullglob a glob matching nothing is empty, and a plain name stays as it is.
  old_ifs=$IFS
  IFS=$'\n'
  # shellcheck disable=SC2206
  matches=($p)
  IFS=$old_ifs
  n=0
  for f in "${matches[@]}"; do
    [ -f "$f" ] || continue
    n=$((n + 1))
    [ -n "${seen[$f]:-}" ] && continue
    seen[$f]=1
    files+=("$f")
  done
  [ $n -gt 0 ] || unmatched+=("$p")
done

worst=0
raise() { [ "$1" -gt "$worst" ] && worst=$1; return 0; }
passed=0 failed=0 invalid=0
rows=()
sections=()
suites=()
i=0
for f in "${files[@]}"; do
  i=$((i + 1))
  base=$(basename "$f")
  base=$(printf '%03d-%s' "$i" "${base//[^A-Za-z0-9._-]/_}")
  xml=$out/files/$base.xml md=$out/files/$base.md err=$out/files/$base.err
  rc_x=0 rc_m=0
  "$kvplan" check "$f" --format junit >"$xml" 2>"$err" || rc_x=$?
  "$kvplan" check "$f" --format md >"$md" 2>"$err.md" || rc_m=$?
  # The same messages twice are noise; a second run that disagrees is kept.
  [ "$rc_m" -eq "$rc_x" ] || cat "$err.md" >>"$err"
  rm -f "$err.md"
  rc=$((rc_x > rc_m ? rc_x : rc_m))
  # A report is a report only with a testsuite in it; exit 0/1 without one is kvplan's failure.
  if [ "$rc" -le 1 ] && ! grep -q '<testsuite ' "$xml"; then
    echo "$prog: $f: kvplan check exited $rc but wrote no JUnit report" >>"$err"
    rc=3
  fi
  [ "$rc" -le 3 ] || rc=3  # a signal or a missing library (127): not a verdict
  raise "$rc"
  fcell=$(printf '%s' "$f" | md_cell)
  case $rc in
    0)
      passed=$((passed + 1))
      n=$(grep -c '<testcase ' "$xml")
      rows+=("| \`$fcell\` | ✅ pass | all $n checks hold | |")
      suites+=("$xml") ;;
    1)
      failed=$((failed + 1))
      n=$(grep -c '<testcase ' "$xml")
      k=$(grep -c '<failure ' "$xml")
      names=$(awk '/<testcase / && match($0, / name="[^"]*"/) {t = substr($0, RSTART + 7, RLENGTH - 8)}
        /<failure / {print t}' "$xml" | xml_unescape |
        paste -sd, - | sed 's/,/, /g')
      fixes=$(sed -n 's/.*; fix: \(.*\)<\/failure>$/\1/p' "$xml" | xml_unescape | awk '!seen[$0]++' |
        paste -sd';' - | sed 's/;/; /g' | md_cell)
      rows+=("| \`$fcell\` | ❌ FAIL | $k of $n failed: $names | ${fixes:-none named} |")
      suites+=("$xml") ;;
    *)
      invalid=$((invalid + 1))
      what=$([ "$rc" -eq 2 ] && echo "invalid" || echo "kvplan error")
      msg=$(grep -v ': warning: ' "$err" | head -n 5)
      [ -n "$msg" ] || msg="kvplan check exited $rc"
      rows+=("| \`$fcell\` | ⚠️ $what (exit $rc) | $(printf '%s' "$msg" | head -n 1 | md_cell) | |")
      {
        echo "  <testsuite name=\"kvplan check $(printf '%s' "$f" | xml_escape)\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\">"
        echo "    <testcase classname=\"kvplan.check\" name=\"$(printf '%s' "$f" | xml_escape)\">"
        echo "      <error message=\"$(printf '%s' "$msg" | head -n 1 | xml_escape)\" type=\"exit $rc\">$(printf '%s' "$msg" | xml_escape)</error>"
        echo "    </testcase>"
        echo "  </testsuite>"
      } >"$xml"
      printf '### ⚠️ %s: %s (exit %s)\n\n```\n%s\n```\n' "$f" "$what" "$rc" "$msg" >"$md"
      suites+=("$xml") ;;
  esac
  sections+=("$md")
  echo "$prog: $f: exit $rc" >&2
done

for p in "${unmatched[@]}"; do
  raise 2
  echo "$prog: error: no file matches '$p'" >&2
  rows+=("| \`$(printf '%s' "$p" | md_cell)\` | ⚠️ no file matches | | |")
done

# One JUnit document: every file's testsuites, with the totals summed from them.
{
  cat "${suites[@]}" /dev/null | sed -e '/^<?xml/d' -e '/^<testsuites[ >]/d' -e '/^<\/testsuites>/d' >"$out/.suites"
  read -r tests failures errors < <(awk '/^  <testsuite /{
      for (i = 1; i <= NF; i++) if (match($i, /^(tests|failures|errors)="[0-9]+"/)) {
        split($i, kv, "\""); sub(/=.*/, "", kv[1]); s[kv[1]] += kv[2] } }
      END { printf "%d %d %d\n", s["tests"], s["failures"], s["errors"] }' "$out/.suites")
  echo '<?xml version="1.0" encoding="UTF-8"?>'
  echo "<testsuites name=\"kvplan check\" tests=\"$tests\" failures=\"$failures\" errors=\"$errors\">"
  cat "$out/.suites"
  echo '</testsuites>'
  rm -f "$out/.suites"
} >"$out/kvplan-check.xml"

total=${#files[@]}
verdict=$([ "$worst" -eq 0 ] && echo "✅ passed" || echo "❌ failed (exit $worst)")
overview() {
  echo "## kvplan check: $verdict"
  echo
  echo "$total files: $passed passed, $failed failed, $invalid invalid$([ ${#unmatched[@]} -gt 0 ] && echo ", ${#unmatched[@]} patterns matched no file"). $("$kvplan" --version 2>/dev/null | head -n 1)."
  echo
  echo "| file | result | checks | fix named by kvplan |"
  echo "| --- | --- | --- | --- |"
  printf '%s\n' "${rows[@]}"
}
{
  overview
  for k in "${!sections[@]}"; do
    echo
    echo "\`$(printf '%s' "${files[k]}" | md_cell)\`:"
    echo
    cat "${sections[k]}"
  done
} >"$out/kvplan-check.md"
if [ -n "$summary" ]; then
  # GitHub drops a step summary over 1 MiB (the runner: "$GITHUB_STEP_SUMMARY upload aborted,
  # supports content up to a size of 1024k"; docs.github.com/actions/using-workflows/
  # workflow-commands-for-github-actions#adding-a-markdown-summary): past 1,000,000 bytes only
  # the table goes there; the full summary stays in DIR/kvplan-check.md.
  if [ "$(wc -c <"$out/kvplan-check.md")" -le 1000000 ]; then
    cat "$out/kvplan-check.md" >>"$summary"
  else
    { overview; echo; echo "Each file's report is in \`$out/kvplan-check.md\` (too long for a job summary)."; } >>"$summary"
  fi || die 2 "$summary: cannot append the summary"
fi
echo "$prog: $total files, $passed passed, $failed failed, $invalid invalid; exit $worst;" \
  "reports in $out/kvplan-check.xml and $out/kvplan-check.md" >&2
exit "$worst"

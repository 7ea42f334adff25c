#!/bin/bash
# Keeps the documents true to the code's settings (make check runs it):
#   1. every SHMC_/SHMRUN_/SHMCC_ variable the library, shmrun, shmcc or the torch backend
#      reads has a row in docs/configuration.md;
#   2. no document (README.md, docs/, bench/README.md, the man pages) names an SHMC_ word
#      that is neither a variable something in the tree reads (the library, its tools,
#      its tests, the torch tests, its benchmarks) nor a name the C code defines (the API's constants, the
#      library's own).
# The defaults in docs/configuration.md are checked against the code by
# tests/unit/check_config_docs.c.
#   scripts/docs_check.sh
set -u -o pipefail
cd "$(dirname "$0")/.."

# Variables read: string literals naming them in the code that reads its environment, and
# the SHMC_ALGO_<NAME> family, whose names the configuration builds from the collectives'.
read_by() {
    grep -rhoE "\"(SHMC|SHMRUN|SHMCC)_[A-Z0-9_]+" "$@" 2>/dev/null | tr -d '"' | sort -u
}
algos=$(sed -n '/shmc__coll_names\[SHMC_C_COUNT\] *= *{/,/}/p' lib/base/algos.c |
    grep -oE '"[a-z_]+"' | tr -d '"' | tr a-z A-Z | sed 's/^/SHMC_ALGO_/')
product=$( (read_by lib launcher mpi bindings/torch/csrc bindings/torch/shmcomm_torch
    # the compiler wrappers' variables, which mk/mpi.mk hands mpi/wrapper.in
    grep -ohE ',SHMC(C|XX)_[A-Z]+,' mk/mpi.mk | tr -d ','
    echo "$algos") | grep -vE '^SHMC_ALGO_$' | sort -u)
everything=$( (echo "$product"; read_by tests bench scripts Makefile mk bindings/torch/tests
    grep -rhoE '\$\{?(SHMC|SHMRUN)_[A-Z0-9_]+' tests bench scripts mk Makefile .ci 2>/dev/null |
        tr -d '${') | sort -u)
# Names the C code uses as names (macros, enumerators, types): every SHMC_ word on a line
# of code (not of a comment, nor in a string) of the headers and sources, and the error codes that
# shmcomm.h makes from its list (XX(ARG, ...) is SHMC_ERR_ARG).
defined=$( (grep -rhvE '^[[:space:]]*(\*|/\*|//)' include lib mpi/include mpi/src 2>/dev/null |
        sed -E 's/"[^"]*"//g; s|/\*.*||; s|//.*||' | grep -oE 'SHMC_[A-Z0-9_]+'
    grep -ohE '^[[:space:]]*XX\([A-Z_]+' include/shmcomm.h | sed -E 's/.*XX\(/SHMC_ERR_/') | sort -u)
# (String literals that name error codes, for messages, are not variables.)
product=$(grep -v '^SHMC_ERR_' <<<"$product")

bad=0
conf=docs/configuration.md
for v in $product; do
    case "$v" in SHMC_ALGO_*) pat='SHMC_ALGO_<NAME>' ;; *) pat=$v ;; esac
    if ! grep -qF "| \`$pat\` |" "$conf"; then
        echo "docs_check: $v is read by the code but has no row in $conf"
        bad=1
    fi
done
docs=$(ls README.md docs/*.md bench/README.md docs/man/*.[0-9] 2>/dev/null)
for d in $docs; do
    for w in $(grep -oE '(SHMC|SHMRUN)_[A-Z0-9_]*[A-Z0-9]' "$d" | sort -u); do
        case "$w" in SHMC_ALGO_NAME | SHMC_ALGO_X) continue ;; esac
        grep -qxF "$w" <<<"$everything" && continue
        grep -qxF "$w" <<<"$defined" && continue
        # A family named by its prefix (SHMC_ALGO_*, SHMC_ERR_*).
        grep -q "^${w}_" <<<"$everything
$defined" && continue
        echo "docs_check: $d names $w, which nothing in the tree reads or defines"
        bad=1
    done
done
[ $bad = 0 ] && echo "docs_check: every variable the code reads is documented, and the documents name no other"
exit $bad

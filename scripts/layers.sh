#!/usr/bin/env bash
# The build states the layers: checks that the library's code calls only down.
#
#   scripts/layers.sh BUILD_DIR            check the objects in BUILD_DIR/lib and the sources
#   scripts/layers.sh --self-test BUILD_DIR  plant an upward call and a cycle; both must fail
#
# Four checks, each printing the symbol or include and the files that break it:
#  1. symbols: every undefined symbol of an object in lib/<layer>/ that the library
#     defines is defined in that layer or one below (read with nm from the objects, so
#     what counts is what the compiler emitted, not what a header says);
#  2. cycles: the graph "file A calls a symbol defined in file B" has no cycle, within a
#     layer or across (tsort finds one and names the files in it);
#  3. includes: every quoted include in lib/<layer>/ is "shmcomm.h" or names a layer at
#     or below its own ("shm/arena.h"), which also covers the inline functions of
#     headers, which nm cannot see; the launcher includes base/ and shm/ only;
#  4. tests: a test outside tests/unit/ and tests/device/ includes only the public header,
#     the test helpers and the shared-memory ABI (the format hostile tests attack),
#     never a layer's state; docs/contributing.md says why.
# LAYERS_EXTRA="layer:object ..." adds objects as if they were in that layer (the
# self-test plants its own this way).
set -u
LAYERS=(base shm transport device p2p coll boot rma)

rank_of() {
    local i
    for i in "${!LAYERS[@]}"; do
        [ "${LAYERS[$i]}" = "$1" ] && { echo "$i"; return; }
    done
    echo -1
}

# Prints "layer object" for every object of the library (and the extra ones).
objects() {
    local b=$1 l o
    for l in "${LAYERS[@]}"; do
        [ -d "$b/lib/$l" ] || continue
        find "$b/lib/$l" -name '*.o' | sort | while read -r o; do echo "$l $o"; done
    done
    for o in ${LAYERS_EXTRA:-}; do echo "${o%%:*} ${o#*:}"; done
}

check_symbols() {
    local b=$1 tmp bad=0
    tmp=$(mktemp -d)
    objects "$b" >"$tmp/objs"
    # Definitions: symbol layer file.
    while read -r l o; do
        nm -g --defined-only "$o" 2>/dev/null | awk -v l="$l" -v o="$o" 'NF >= 3 {print $3, l, o}'
    done <"$tmp/objs" | sort >"$tmp/defs"
    # Uses: symbol layer file.
    while read -r l o; do
        nm -u "$o" 2>/dev/null | awk -v l="$l" -v o="$o" '{print $NF, l, o}'
    done <"$tmp/objs" | sort >"$tmp/uses"
    # Join uses with definitions: symbol user-layer user def-layer definer.
    join "$tmp/uses" "$tmp/defs" >"$tmp/edges"
    local order
    order=$(printf '%s ' "${LAYERS[@]}")
    awk -v order="$order" -v root="$b/" '
        BEGIN { n = split(order, L, " "); for (i = 1; i <= n; i++) R[L[i]] = i }
        function short(f) { sub("^" root, "", f); return f }
        R[$2] < R[$4] {
            printf "layers: %s (%s) calls up into %s (%s): %s\n", short($3), $2, short($5), $4, $1
            bad = 1
        }
        END { exit bad }' "$tmp/edges" || bad=1
    # File graph, for cycles: edges user -> definer (a file calling itself is no cycle).
    awk -v root="$b/" '{ a = $3; d = $5; sub("^" root, "", a); sub("^" root, "", d);
                         if (a != d) print a, d }' "$tmp/edges" | sort -u >"$tmp/graph"
    if ! tsort "$tmp/graph" >/dev/null 2>"$tmp/tsort"; then
        echo "layers: the files call each other in a cycle:"
        grep -v 'input contains a loop' "$tmp/tsort" | sed 's/^tsort: /  /' | awk '!seen[$0]++'
        bad=1
    fi
    NFILES=$(cut -d' ' -f2 "$tmp/objs" | sort -u | wc -l)
    NEDGES=$(wc -l <"$tmp/graph")
    rm -rf "$tmp"
    return $bad
}

check_includes() {
    local bad=0 f l inc il
    for l in "${LAYERS[@]}"; do
        while read -r f; do
            while read -r inc; do
                [ "$inc" = "shmcomm.h" ] && continue
                il=${inc%%/*}
                if [ "$il" = "$inc" ] || [ "$(rank_of "$il")" -lt 0 ]; then
                    echo "layers: $f includes \"$inc\", which names no layer (use \"<layer>/$inc\")"
                    bad=1
                elif [ "$(rank_of "$il")" -gt "$(rank_of "$l")" ]; then
                    echo "layers: $f ($l) includes \"$inc\" from the layer above, $il"
                    bad=1
                fi
            done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
        done < <(find "lib/$l" -name '*.[ch]' -o -name '*.cu' | sort)
    done
    for f in launcher/*.[ch]; do
        while read -r inc; do
            case "$inc" in
            base/* | shm/* | shmcomm.h | */*) ;;
            *) continue ;; # the launcher's own headers
            esac
            case "$inc" in
            base/* | shm/* | shmcomm.h | coll/rules.h) ;;
            *)
                echo "layers: $f includes \"$inc\": shmrun links only base, shm and the rules' reader"
                bad=1
                ;;
            esac
        done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
    done
    # The rules' reader, which shmrun links too (mk/launcher.mk), stands on base alone.
    while read -r inc; do
        case "$inc" in
        base/* | shmcomm.h | coll/rules.h | coll/dispatch_rules.inc) ;;
        *)
            echo "layers: lib/coll/rules.c includes \"$inc\": shmrun links it, over base alone"
            bad=1
            ;;
        esac
    done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' lib/coll/rules.c lib/coll/rules.h)
    # The MPI interface is a binding: the public header, mpi.h and its own headers only
    # (those in mpi/src, a bare name).
    for f in mpi/src/*.[ch]; do
        [ -e "$f" ] || continue
        while read -r inc; do
            if { [ "$inc" != "${inc##*/}" ] || [ ! -e "mpi/src/$inc" ]; } &&
                [ "$inc" != shmcomm_mpi_functions.h ]; then
                echo "layers: $f includes \"$inc\": the MPI interface uses shmcomm.h alone"
                bad=1
            fi
        done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
    done
    return $bad
}

# What a test may include: its own helpers, the public header, and (robustness tests
# attack it) the shared-memory format. Unit tests of a module, and the device tests
# (which make stand-in device memory through the device layer), may include more.
TEST_ALLOWED='^(shmcomm\.h|harness\.h|coll_call\.h|coll_ref\.h|coll_pairs\.h|stress\.h|p2p_protocols\.h|refuse_malloc\.h|mpi_test\.h|pipes\.h|shm/arena\.h|transport/ring\.h|p2p/records\.h)$'
check_tests() {
    local bad=0 f inc
    while read -r f; do
        while read -r inc; do
            if ! [[ "$inc" =~ $TEST_ALLOWED ]]; then
                echo "layers: $f includes \"$inc\": a test outside tests/unit and tests/device" \
                     "uses the public API (and the arena's format), not a layer's internals"
                bad=1
            fi
        done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
    done < <(find tests -name '*.[ch]' -not -path 'tests/unit/*' -not -path 'tests/device/*' \
                 -not -path 'tests/fuzz/*' -not -name 'harness.c' | sort)
    return $bad
}

run_checks() {
    local b=$1 bad=0
    check_symbols "$b" || bad=1
    check_includes || bad=1
    check_tests || bad=1
    if [ $bad -eq 0 ]; then
        echo "layers: $NFILES objects, $NEDGES file-to-file calls: every call goes down" \
             "(${LAYERS[*]}), no cycle, includes and tests in order"
    fi
    return $bad
}

self_test() {
    local b=$1 tmp out
    tmp=$(mktemp -d)
    # An upward call: a file in shm calling the point-to-point progress engine.
    printf 'int shmc__progress(void *);\nint shmc__plant_up(void);\nint shmc__plant_up(void) { return shmc__progress(0); }\n' >"$tmp/up.c"
    # A cycle between two files of one layer.
    printf 'int shmc__plant_b(int);\nint shmc__plant_a(int);\nint shmc__plant_a(int n) { return n ? shmc__plant_b(n - 1) : 0; }\n' >"$tmp/a.c"
    printf 'int shmc__plant_a(int);\nint shmc__plant_b(int);\nint shmc__plant_b(int n) { return n ? shmc__plant_a(n - 1) : 0; }\n' >"$tmp/b.c"
    for f in up a b; do
        ${CC:-cc} -c "$tmp/$f.c" -o "$tmp/$f.o" || { rm -rf "$tmp"; return 1; }
    done
    local ok=1
    out=$(LAYERS_EXTRA="shm:$tmp/up.o" check_symbols "$b" 2>&1) &&
        { echo "layers self-test: a planted upward call was not caught"; ok=0; }
    echo "$out" | grep -q 'up.o (shm) calls up into lib/p2p/progress.o (p2p): shmc__progress' ||
        { echo "layers self-test: the upward call was not named:"; echo "$out"; ok=0; }
    out=$(LAYERS_EXTRA="p2p:$tmp/a.o p2p:$tmp/b.o" check_symbols "$b" 2>&1) &&
        { echo "layers self-test: a planted cycle was not caught"; ok=0; }
    echo "$out" | grep -q 'a.o' && echo "$out" | grep -q 'b.o' ||
        { echo "layers self-test: the cycle's files were not named:"; echo "$out"; ok=0; }
    rm -rf "$tmp"
    [ $ok -eq 1 ] && echo "layers self-test: a planted upward call and a planted cycle are caught"
    [ $ok -eq 1 ]
}

cd "$(dirname "$0")/.." || exit 2
if [ "${1:-}" = "--self-test" ]; then
    self_test "${2:?usage: $0 --self-test BUILD_DIR}"
    exit $?
fi
run_checks "${1:?usage: $0 BUILD_DIR}"

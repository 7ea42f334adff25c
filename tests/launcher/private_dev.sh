#!/bin/sh
# Runs a command where /dev/shm is as a container leaves it, inside a private mount
# namespace of its own, which it makes (unshare -m): nothing it mounts is seen outside.
#   private_dev.sh small CMD...   a 64 MiB /dev/shm, as Docker gives a container
#   private_dev.sh none CMD...    no /dev/shm at all: /dev holds only the usual devices
# Afterwards it prints "dev/shm entries: N" (small) so a caller can see that nothing was
# left there. Exit 77: no private mount namespace could be set up (not root).
mode=$1
shift
if [ "$PRIVATE_DEV_INSIDE" != 1 ]; then
    unshare -m --propagation private true 2>/dev/null || exit 77
    PRIVATE_DEV_INSIDE=1 exec unshare -m --propagation private "$0" "$mode" "$@"
fi
unset PRIVATE_DEV_INSIDE
case "$mode" in
small)
    mount -t tmpfs -o size=64m,mode=1777 tmpfs /dev/shm || exit 77
    "$@"
    rc=$?
    echo "dev/shm entries: $(ls -A /dev/shm | wc -l)"
    exit $rc
    ;;
none)
    old=$(mktemp -d) || exit 77
    mount --bind /dev "$old" || exit 77
    mount -t tmpfs -o size=1m,mode=755 tmpfs /dev || exit 77
    for f in null zero full random urandom tty; do
        touch /dev/$f && mount --bind "$old/$f" /dev/$f || exit 77
    done
    ln -s /proc/self/fd /dev/fd
    ln -s /proc/self/fd/0 /dev/stdin
    ln -s /proc/self/fd/1 /dev/stdout
    ln -s /proc/self/fd/2 /dev/stderr
    [ ! -e /dev/shm ] || exit 77
    "$@"
    rc=$?
    # The directory is in /tmp outside the namespace too: unmounted here, it can go.
    for f in null zero full random urandom tty; do
        umount /dev/$f
    done
    umount /dev && umount "$old" && rmdir "$old"
    exit $rc
    ;;
*)
    echo "usage: private_dev.sh small|none CMD..." >&2
    exit 2
    ;;
esac

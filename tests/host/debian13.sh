#!/bin/sh
# make check-debian13 (tools/debian13.sh) without making a real root: on
# Debian 13 it says there is nothing to do; on another machine it needs
# root, and as root a missing debootstrap, an archive that cannot be reached and a half-made
# root left by an interrupted run each get a clear error and leave nothing
# behind, and so does debootstrap stopped by SIGTERM; then, in a small root made here (a shell and a few programs,
# marked complete), a command that fails and a run stopped by SIGTERM, by
# SIGINT to its process group and by SIGHUP each end with every mount
# undone in the namespace, no process left in the root and nothing
# mounted under it outside, the status saying what happened; and when the
# namespace's process 1 is killed outright, the kernel ends the rest.
set -eu
[ -z "$STOCK" ] || { echo "layer only"; exit 77; }
dir="$TESTBIN/host/debian13"
rm -rf "$dir"
mkdir -p "$dir"
script="$TOP/tools/debian13.sh"
fail=0

if [ "$(. /etc/os-release && echo "$VERSION_CODENAME")" = trixie ]; then
    rc=0
    make -s -C "$TOP" check-debian13 >"$dir/out" 2>&1 || rc=$?
    cat "$dir/out"
    [ $rc = 0 ] && grep -q "this machine runs Debian 13 (trixie): 'make check' is the Debian 13 run; nothing to do" "$dir/out" ||
        { echo "on Debian 13: exit $rc, not 'nothing to do'"; exit 1; }
    exit 0
fi
[ "$(id -u)" = 0 ] || { echo "not root: debootstrap, mount and chroot need root"; exit 77; }

# expect NAME STATUS PATTERN OUTPUT: the run's exit status and a line of it
expect() {
    if [ "$2" = "$4" ] && grep -qF -- "$3" "$dir/$1.out"; then
        echo "$1: exit $4, '$(grep -F -- "$3" "$dir/$1.out" | head -1)'"
    else
        echo "$1: exit $4, expected $2 and '$3':"; sed 's/^/    | /' "$dir/$1.out"; fail=1
    fi
}
nothing_left() {
    if [ -e "$1" ]; then echo "$2: left $1 behind"; fail=1; else echo "$2: nothing left behind"; fi
}

# not root (nobody)
rc=0
setpriv --reuid=65534 --regid=65534 --clear-groups env DEBIAN13_DIR="$dir/notroot" sh "$script" >"$dir/notroot.out" 2>&1 || rc=$?
expect notroot 1 "needs root (debootstrap, mount and chroot): run it as root, e.g. sudo make check-debian13" $rc
nothing_left "$dir/notroot" notroot

# no debootstrap on PATH (merged /usr: /bin is /usr/bin, debootstrap is in /usr/sbin)
rc=0
DEBIAN13_DIR="$dir/nodebootstrap" PATH=/usr/bin:/bin sh "$script" >"$dir/nodebootstrap.out" 2>&1 || rc=$?
expect nodebootstrap 1 "debootstrap is not installed: run tools/setup.sh" $rc
nothing_left "$dir/nodebootstrap" nodebootstrap

# an archive that cannot be reached (nothing listens on port 9)
rc=0
DEBIAN13_DIR="$dir/nonet" DEBIAN13_MIRROR=http://127.0.0.1:9/debian sh "$script" >"$dir/nonet.out" 2>&1 || rc=$?
expect nonet 1 "the Debian archive http://127.0.0.1:9/debian cannot be reached" $rc
nothing_left "$dir/nonet" nonet

# a root without its completion mark, as debootstrap leaves one it did not finish
mkdir -p "$dir/half/root/etc" "$dir/half/root/usr/bin"
echo x >"$dir/half/root/usr/bin/something"
rc=0
DEBIAN13_DIR="$dir/half" DEBIAN13_MIRROR=http://127.0.0.1:9/debian sh "$script" >"$dir/half.out" 2>&1 || rc=$?
expect half 1 "was left half-made by an interrupted run: removing it and making it again" $rc
nothing_left "$dir/half/root" half

# debootstrap stopped by SIGTERM while it extracts: the half-made root goes
# at once (a minute's download at most; only when the archive is reachable)
mirror=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '/^URIs:/ { print $2; exit }')
if [ -n "$mirror" ] && wget -q -T 20 -t 1 -O /dev/null "$mirror/dists/trixie/Release"; then
    DEBIAN13_DIR="$dir/interrupted" DEBIAN13_RUN=true sh "$script" >"$dir/interrupted.out" 2>&1 &
    pid=$!
    for i in $(seq 600); do
        grep -q "Extracting" "$dir/interrupted/debootstrap.log" 2>/dev/null && break
        sleep 0.1
    done
    kill -TERM $pid
    rc=0
    wait $pid || rc=$?
    expect interrupted 143 "debian13: removing the half-made root" $rc
    nothing_left "$dir/interrupted" interrupted
    for p in /proc/[0-9]*; do
        case $(readlink "$p/root" 2>/dev/null) in
            "$dir/interrupted"*) echo "interrupted: process ${p#/proc/} left in the root"; fail=1 ;;
        esac
    done
else
    echo "(the host's archive cannot be reached: an interrupted debootstrap is not tried)"
fi

# A small root: dash, env, sleep and their libraries, the directories the
# mounts need, and the mark of a complete root.
root="$dir/small/root"
mkdir -p "$root/usr/bin" "$root/usr/lib" "$root/usr/lib64" "$root/proc" "$root/sys" "$root/dev" \
    "$root/etc/apt/sources.list.d" "$root/root" "$root/tmp"
ln -s usr/bin "$root/bin"; ln -s usr/lib "$root/lib"; ln -s usr/lib64 "$root/lib64"
for prog in /bin/sh /usr/bin/env /usr/bin/sleep; do
    real=$(readlink -f "$prog")
    cp "$real" "$root/usr/bin/$(basename "$prog")"
    for lib in $(ldd "$real" | grep -o '/[^ ]*'); do
        dest="$root/usr${lib#/usr}"
        mkdir -p "$(dirname "$dest")"
        cp -L "$lib" "$dest"
    done
done
echo "trixie test $(date -u +%Y-%m-%dT%H:%MZ)" >"$root/etc/wine-layer-root"

# in_root: the processes whose root is the small root
in_root() {
    for p in /proc/[0-9]*; do
        [ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && echo "${p#/proc/}"
    done
    return 0
}
mounts_outside() {
    awk -v d="$root" 'index($5, d) == 1 { print $5 }' /proc/self/mountinfo
}
after() {
    name=$1
    grep -q "debian13: mounted proc, sys, dev, dev/pts, dev/shm in $root" "$dir/$name.out" &&
        grep -q "debian13: unmounted dev/shm, dev/pts, dev, sys, proc" "$dir/$name.out" ||
        { echo "$name: the mounts were not both made and undone:"; sed 's/^/    | /' "$dir/$name.out"; fail=1; }
    [ -z "$(in_root)" ] || { echo "$name: processes left in the root: $(in_root)"; fail=1; }
    [ -z "$(mounts_outside)" ] || { echo "$name: mounted outside: $(mounts_outside)"; fail=1; }
}

rc=0
DEBIAN13_DIR="$dir/small" DEBIAN13_RUN='echo in the root; exit 3' sh "$script" >"$dir/failure.out" 2>&1 || rc=$?
expect failure 3 "'echo in the root; exit 3' exited with status 3" $rc
grep -q "^in the root" "$dir/failure.out" || { echo "failure: the command did not run in the root"; fail=1; }
[ -f "$root/root/wine-layer/tools/debian13.sh" ] || { echo "failure: the checkout was not copied"; fail=1; }
after failure

# stopped SIGNAL STATUS HOW: a run stopped while its command sleeps in the root
stopped() {
    sig=$1 status=$2 how=$3 name=stopped-$1
    : >"$dir/$name.out"
    # a process group of its own, with SIGINT as a terminal leaves it (a
    # program started in the background by a shell ignores it)
    DEBIAN13_DIR="$dir/small" DEBIAN13_RUN='echo sleeping; exec sleep 300' \
        setsid perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV' sh "$script" >"$dir/$name.out" 2>&1 &
    pid=$!
    for i in $(seq 200); do
        [ -n "$(in_root)" ] && grep -q '^sleeping' "$dir/$name.out" && break
        sleep 0.1
    done
    sleeper=$(in_root)
    # the mounts, as the process in the root sees them
    seen=$(awk '{ print $5 }' "/proc/$sleeper/mountinfo" 2>/dev/null | sort | tr '\n' ' ')
    [ "$seen" = "/dev /dev/pts /dev/shm /proc /sys " ] && echo "$name: mounted in the root: $seen" ||
        { echo "$name: mounts in the root are '$seen'"; fail=1; }
    case $how in
        group) kill -"$sig" -"$pid" ;;   # setsid: the run's own process group, as a terminal's ^C
        init)  # process 1 of the namespace, the sleeper's parent: the kernel ends the rest
               kill -"$sig" "$(awk '/^PPid:/ { print $2 }' "/proc/$sleeper/status")" ;;
        *) kill -"$sig" "$pid" ;;
    esac
    rc=0
    wait $pid || rc=$?
    if [ $how = init ]; then
        # (unshare exits 1 when its child was killed: it cannot re-raise SIGKILL)
        [ $rc != 0 ] && expect "$name" $rc "exited with status $rc" $rc ||
            { echo "$name: exit $rc"; fail=1; }
        [ -z "$(in_root)" ] || { echo "$name: processes left in the root: $(in_root)"; fail=1; }
        [ -z "$(mounts_outside)" ] || { echo "$name: mounted outside: $(mounts_outside)"; fail=1; }
        return 0
    fi
    expect "$name" "$status" "debian13: got SIG$sig" $rc
    grep -q "stopping the run in the root" "$dir/$name.out" || { echo "$name: the run was not stopped"; fail=1; }
    after "$name"
}
stopped TERM 143 process
stopped INT 130 group
stopped HUP 129 process
stopped KILL any init
exit $fail

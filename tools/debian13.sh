#!/bin/sh
# make check-debian13: the README's test command on Debian 13 (trixie, Wine
# 10.0~repack-6) from a Debian 12 machine. A Debian 13 root made with
# debootstrap under build/debian13/root (kept and reused) gets a copy of
# this checkout in /root/wine-layer, and runs there, as on a fresh Debian 13
# machine:
#     tools/setup.sh && ./configure -q && make check
# then the result line of that run is printed and is this script's status.
#
# Usage: tools/debian13.sh [TESTS="NAME..."]   (make check-debian13 TESTS=...)
# Environment:
#   DEBIAN13_DIR     where the root and the logs are (default build/debian13)
#   DEBIAN13_MIRROR  the Debian archive (default: the host's, from its apt sources)
#   DEBIAN13_RUN     a command to run in the copy instead of the README's
#                    (e.g. 'tools/setup.sh && ./configure -q && make check-stock')
#
# The root is complete when it holds etc/wine-layer-root, written last; a
# root without it (an interrupted run) is removed and made again. proc, sys,
# dev, dev/pts and a dev/shm of its own are mounted in the root only inside
# a private mount and PID namespace (unshare) and unmounted by the script on
# its way out, failures and signals included; were it killed outright, the
# kernel would end every process of the namespace and drop its mounts, and
# none is ever visible outside it. On Debian 13 itself there is nothing to
# do: 'make check' is that run.
#
# Copyright 2026 The wine-backtrace-wct authors
# SPDX-License-Identifier: LGPL-2.1-or-later

set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
SUITE=trixie
DIR=${DEBIAN13_DIR:-$TOP/build/debian13}
ROOT=$DIR/root
MARKER=etc/wine-layer-root
COPY=/root/wine-layer
LOG=$DIR/check.log
MOUNTS="proc sys dev dev/pts dev/shm"
# the certificate authorities of this machine's network, in the root
# (host_cas), and the mark that the root's bundle needs remaking
CA_DIR=usr/local/share/ca-certificates/host
CA_CHANGED=etc/wine-layer-cas-changed

say() { echo "debian13: $*"; }
die() { echo "debian13: error: $*" >&2; exit 1; }

# Anything mounted at or under $1, as this namespace sees it.
mounted_under() {
    awk -v d="$1" '$5 == d || index($5, d "/") == 1 { print $5 }' /proc/self/mountinfo
}

# Remove a root that is not complete, never through a mount point.
remove_root() {
    [ -e "$ROOT" ] || return 0
    left=$(mounted_under "$ROOT")
    [ -z "$left" ] || die "not removing $ROOT: something is mounted in it ($(echo $left)); unmount it first"
    rm -rf --one-file-system "$ROOT"
}

# ---------------------------------------------------------------------------
# Inside the namespace (unshare --mount --pid --fork): we are its process 1.
# Mount, run the command in the root, and always unmount.

if [ "${1:-}" = --inside ]; then
    shift
    what=$1
    mounted=""

    # The other processes of the namespace, all ours: signal each by id
    # (kill_others SIGNAL), or count the live ones into $n (count_others).
    # No command substitution here, whose subshell would count itself.
    kill_others() {
        for p in /proc/[0-9]*; do
            [ "${p#/proc/}" = 1 ] || kill -"$1" "${p#/proc/}" 2>/dev/null || true
        done
    }
    count_others() {
        n=0
        for p in /proc/[0-9]*; do
            [ "${p#/proc/}" = 1 ] && continue
            read -r stat <"$p/stat" 2>/dev/null || continue
            stat=${stat##*) }
            [ "${stat%% *}" = Z ] || n=$((n + 1))
        done
    }

    cleanup() {
        rc=$?
        trap '' INT TERM HUP
        trap - EXIT
        count_others
        if [ $n != 0 ]; then
            kill_others TERM
            for i in 1 2 3 4 5 6 7 8 9 10; do
                sleep 0.5
                count_others
                [ $n != 0 ] || break
            done
            [ $n = 0 ] || kill_others KILL
            sleep 0.2
        fi
        done_list=""
        for m in $mounted; do   # innermost first
            umount "$ROOT/$m" 2>/dev/null || umount -l "$ROOT/$m" || true
            done_list="$done_list $m"
        done
        left=$(mounted_under "$ROOT")
        if [ -n "$left" ]; then
            echo "debian13: error: still mounted: $left" >&2
            rc=1
        elif [ -n "$done_list" ]; then
            echo "debian13: unmounted$(echo "$done_list" | sed 's/ /, /g; s/^,//')"
        fi
        exit $rc
    }
    trap cleanup EXIT
    # (INT is ignored when the script started us in the background; it
    # sends TERM whatever it got)
    trap 'echo "debian13: stopping the run in the root" >&2; exit 130' INT
    trap 'echo "debian13: stopping the run in the root" >&2; exit 143' TERM
    trap 'echo "debian13: stopping the run in the root" >&2; exit 129' HUP

    for m in $MOUNTS; do
        case $m in
            proc) mount -t proc proc "$ROOT/proc" ;;
            sys) mount -t sysfs sysfs "$ROOT/sys" ;;
            dev/shm) mkdir -p "$ROOT/dev/shm"; mount -t tmpfs -o mode=1777,nosuid,nodev shm "$ROOT/dev/shm" ;;
            *) mount --bind "/$m" "$ROOT/$m" ;;
        esac
        mounted="$m $mounted"
    done
    say "mounted $(echo $MOUNTS | sed 's/ /, /g') in $ROOT"
    # (before ca-certificates is installed, its own set-up takes them)
    if [ -f "$ROOT/$CA_CHANGED" ] && [ -x "$ROOT/usr/sbin/update-ca-certificates" ]; then
        chroot "$ROOT" /usr/sbin/update-ca-certificates --fresh >/dev/null 2>&1 ||
            { echo "debian13: error: update-ca-certificates failed in the root" >&2; exit 1; }
        rm -f "$ROOT/$CA_CHANGED"
    fi

    # A fresh machine's environment, root's; the command runs in the
    # background so that the traps above run as soon as a signal comes.
    chroot "$ROOT" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" CI="${CI:-}" \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        /bin/sh -c "cd $COPY && $what" </dev/null &
    wait $! && exit 0 || exit $?
fi

# ---------------------------------------------------------------------------
# Outside: checks, the root, the copy, then the namespace.

tests=""
for a in "$@"; do
    case $a in
        TESTS=*) tests=${a#TESTS=} ;;
        *) die "unknown argument '$a' (usage: tools/debian13.sh [TESTS=\"NAME...\"])" ;;
    esac
done
if [ -n "${DEBIAN13_RUN:-}" ]; then
    what=$DEBIAN13_RUN
else
    what="tools/setup.sh && ./configure -q && make check${tests:+ TESTS=\"$tests\"}"
fi

codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
if [ "$codename" = "$SUITE" ]; then
    say "this machine runs Debian 13 ($SUITE): 'make check' is the Debian 13 run; nothing to do"
    exit 0
fi
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, mount and chroot): run it as root, e.g. sudo make check-debian13"

# The host's Debian archive and its security archive, from its apt sources
# (deb822 .sources files and one-line sources.list entries).
host_uri() {   # host_uri SUITE-PATTERN
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        awk -v pat="$1" 'BEGIN { RS = ""; FS = "\n" }
             { uri = ""; ok = 0
               for (i = 1; i <= NF; i++) {
                   if ($i ~ /^URIs:/) { split($i, u, " "); uri = u[2] }
                   if ($i ~ /^Suites:/ && $i ~ pat) ok = 1
                   if ($i ~ /^Enabled: *no/) ok = 0 }
               if (ok && uri != "") { print uri; exit } }' "$f"
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] || continue
        sed -n 's/\[[^]]*\]//; s/^deb \+\([^ ]*\) \+\([^ ]*\) .*/\1 \2/p' "$f" |
            awk -v pat="$1" '$2 ~ pat { print $1 }'
    done
}
MIRROR=${DEBIAN13_MIRROR:-$(host_uri '(^|[ :])(bookworm|trixie|stable|oldstable|sid|unstable)( |$)' | head -1)}
MIRROR=${MIRROR%/}
[ -n "$MIRROR" ] || die "no Debian archive in this machine's apt sources; set DEBIAN13_MIRROR=http://deb.debian.org/debian"
SECURITY=""
[ -n "${DEBIAN13_MIRROR:-}" ] || SECURITY=$(host_uri '[a-z]+-security' | head -1)
SECURITY=${SECURITY%/}

# probe URL: can the archive be reached?
probe() {
    if command -v wget >/dev/null; then wget -q -T 20 -t 2 -O /dev/null "$1"
    elif command -v curl >/dev/null; then curl -fsS -m 40 -o /dev/null "$1"
    else return 1
    fi
}

write_sources() {
    rm -f "$ROOT/etc/apt/sources.list"
    {
        # amd64 only: with the archive's i386 indexes apt 3.0 drops the
        # whole suite when one fails to download
        printf 'Types: deb deb-src\nURIs: %s\nSuites: %s %s-updates\nComponents: main\nArchitectures: amd64\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
            "$MIRROR" $SUITE $SUITE
        [ -z "$SECURITY" ] ||
            printf '\nTypes: deb deb-src\nURIs: %s\nSuites: %s-security\nComponents: main\nArchitectures: amd64\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
                "$SECURITY" $SUITE
    } >"$ROOT/etc/apt/sources.list.d/debian.sources"
    cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
    host_cas
}

# The certificate authorities this machine trusts beyond Debian's own (its
# network's, e.g. a proxy that inspects TLS: in /etc/ssl/certs/ca-certificates.crt
# but in no file of /usr/share/ca-certificates) go into the root's
# /usr/local/share/ca-certificates/host, where update-ca-certificates takes
# them, as a machine on this network would have them; without them npm
# cannot fetch the test programs. HTTP to the archive needs none.
host_cas() {
    bundle=/etc/ssl/certs/ca-certificates.crt
    new=$DIR/cas.new
    rm -rf "$new"
    mkdir -p "$new"
    if [ -f "$bundle" ]; then
        find /usr/share/ca-certificates -name '*.crt' -type f -exec cat {} + >"$new/known" 2>/dev/null || true
        awk -v known="$new/known" -v out="$new" '
            /-----BEGIN CERTIFICATE-----/ { b = ""; inside = 1 }
            inside { sub(/\r$/, ""); b = b $0 "\n" }
            /-----END CERTIFICATE-----/ {
                inside = 0
                if (FILENAME == known) { seen[b] = 1; next }
                if (!(b in seen)) { f = sprintf("%s/host-%d.crt", out, ++n); printf "%s", b > f; close(f) }
            }' "$new/known" "$bundle"
        rm -f "$new/known"
    fi
    if [ -z "$(ls "$new")" ] && [ ! -d "$ROOT/$CA_DIR" ]; then
        :
    elif ! diff -r -q "$new" "$ROOT/$CA_DIR" >/dev/null 2>&1; then
        rm -rf "$ROOT/$CA_DIR"
        if [ -n "$(ls "$new")" ]; then
            mkdir -p "$ROOT/$CA_DIR"
            cp "$new"/*.crt "$ROOT/$CA_DIR/"
            say "the root trusts this machine's $(ls "$new" | wc -l) certificate authorities beyond Debian's"
        fi
        : >"$ROOT/$CA_CHANGED"   # update-ca-certificates runs in the root (if installed)
    fi
    rm -rf "$new"
}

need_tools() {
    for t in "$@"; do
        command -v $t >/dev/null || die "$t not found (util-linux, coreutils)"
    done
}

make_root() {
    command -v debootstrap >/dev/null ||
        die "debootstrap is not installed: run tools/setup.sh (it installs it) or apt-get install debootstrap"
    need_tools unshare
    [ -f /usr/share/debootstrap/scripts/$SUITE ] ||
        die "this debootstrap ($(dpkg-query -W -f='${Version}' debootstrap 2>/dev/null)) cannot make $SUITE: upgrade it"
    say "checking that $MIRROR can be reached"
    probe "$MIRROR/dists/$SUITE/Release" ||
        die "the Debian archive $MIRROR cannot be reached (no $MIRROR/dists/$SUITE/Release); check the network or set DEBIAN13_MIRROR"
    mkdir -p "$DIR"
    making=1
    say "making a Debian 13 root in $ROOT with debootstrap --variant=minbase $SUITE (about a minute; log in $DIR/debootstrap.log)"
    # in a namespace of its own: the mounts it makes go with it if it dies;
    # in the background, so that a signal stops it at once (on_signal)
    unshare --mount --pid --fork --kill-child --mount-proc --propagation private \
        debootstrap --variant=minbase --arch=amd64 $SUITE "$ROOT" "$MIRROR" >"$DIR/debootstrap.log" 2>&1 &
    inner=$!
    rc=0
    wait $inner || rc=$?
    inner=""
    if [ $rc != 0 ]; then
        tail -15 "$DIR/debootstrap.log" | sed 's/^/    | /' >&2
        die "debootstrap failed (the end of its log is above)"
    fi
    write_sources
    echo "$SUITE $MIRROR $(date -u +%Y-%m-%dT%H:%MZ)" >"$ROOT/$MARKER"
    making=""
    say "the root is ready ($(du -sm "$ROOT" | cut -f1) MB)"
}

# On a failure or a signal while the root is being made, no half-made root
# stays behind (and one that does, after a kill -9, is found next time).
making=""
inner=""
tailer=""
list=""
on_exit() {
    rc=$?
    trap - EXIT INT TERM HUP
    [ -z "$list" ] || rm -f "$list"
    if [ -n "$making" ]; then
        say "removing the half-made root"
        remove_root || true
        rm -f "$DIR/debootstrap.log"
        rmdir "$DIR" 2>/dev/null || true
    fi
    exit $rc
}
# A signal for us: process 1 of the namespace stops the run and unmounts
# on TERM (it was started in the background, so it ignores INT); wait for
# it, and exit as the signal says.
on_signal() {
    echo "debian13: got SIG$1" >&2
    if [ -n "$inner" ]; then
        ns_init=$(cat /proc/$inner/task/$inner/children 2>/dev/null | awk '{ print $1 }')
        # debootstrap as process 1 ignores TERM, and its root is removed
        # anyway: KILL, and the kernel ends the namespace
        if [ -n "$making" ]; then sig=KILL; else sig=TERM; fi
        [ -z "$ns_init" ] || kill -$sig "$ns_init" 2>/dev/null || true
        wait "$inner" 2>/dev/null || true
        [ -z "$tailer" ] || wait "$tailer" 2>/dev/null || true
    fi
    exit "$2"
}
trap on_exit EXIT
trap 'on_signal INT 130' INT
trap 'on_signal TERM 143' TERM
trap 'on_signal HUP 129' HUP

if [ -d "$ROOT" ] && [ ! -f "$ROOT/$MARKER" ]; then
    say "$ROOT was left half-made by an interrupted run: removing it and making it again"
    remove_root
fi
if [ ! -d "$ROOT" ]; then
    make_root
else
    say "reusing the Debian 13 root in $ROOT (made $(cut -d' ' -f3 "$ROOT/$MARKER"); rm -rf it for a fresh one)"
    write_sources
fi

need_tools unshare chroot mount umount tar

# This checkout as it is now (tracked and untracked files, not what
# .gitignore leaves out such as build/) in the root; the copy's own
# build/ is kept from run to run.
list=$(mktemp)
# (and the repository: host/no_wine_source and make series read it)
if [ -d "$TOP/.git" ] && git -C "$TOP" rev-parse --show-toplevel >/dev/null 2>&1; then
    (cd "$TOP" && { git ls-files -z --cached --others --exclude-standard; find .git -type f -print0; } |
        xargs -0 -r sh -c 'for f; do [ -f "$f" ] || [ -L "$f" ] && printf "%s\n" "${f#./}"; done' sh) | sort >"$list"
else
    (cd "$TOP" && find . \( -path ./build -o -path ./.git -o -path ./autom4te.cache \) -prune -o \
        \( -type f -o -type l \) ! -name Makefile ! -name 'config.*' ! -path ./loader/wine-layer -print |
        sed 's|^\./||') | sort >"$list"
fi
mkdir -p "$ROOT$COPY"
if [ -f "$ROOT$COPY/.debian13-files" ]; then
    comm -23 "$ROOT$COPY/.debian13-files" "$list" | while read -r f; do rm -f "$ROOT$COPY/$f"; done
fi
say "copying this checkout ($(wc -l <"$list") files) to $COPY in the root"
(cd "$TOP" && tar cf - -T "$list") | (cd "$ROOT$COPY" && tar xf -)
cp "$list" "$ROOT$COPY/.debian13-files"

say "running '$what' in the root (log: $LOG)"
rc=0
# (the log exists before the tailer below opens it: under load the run
# could start after tail, which gives up on a missing file)
: >"$LOG"
unshare --mount --pid --fork --kill-child --mount-proc --propagation private \
    sh "$TOP/tools/debian13.sh" --inside "$what" >>"$LOG" 2>&1 &
inner=$!
# it shows the log to the end, whatever signal the run gets
(trap '' INT TERM HUP; exec tail -n +1 -f --pid=$inner "$LOG" 2>/dev/null) &
tailer=$!
wait $inner || rc=$?
inner=""
wait $tailer || true

result=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$LOG" | tail -1)
wine=$(chroot "$ROOT" dpkg-query -W -f='${Version}' wine64 2>/dev/null || echo none)
if [ -n "$result" ]; then
    say "Debian 13, wine64 $wine: $result"
elif [ -n "${DEBIAN13_RUN:-}" ]; then
    say "Debian 13, wine64 $wine: '$what' exited with status $rc"
else
    say "Debian 13, wine64 $wine: no test results (exit $rc); see $LOG"
fi
exit $rc

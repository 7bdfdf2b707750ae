#!/bin/sh
# The layer follows the installed wine64: tools/config.sh gives the version
# and its series for 8.0~repack-4 and 10.0~repack-6, the distribution's own
# when none is installed (Debian 12: 8.0, Debian 13: 10.0), and no series
# for any other; with another version tools/setup.sh and ./configure say
# which versions are supported and fail, before setup installs or fetches
# anything; with none, setup installs exactly the distribution's own. The
# installed wine64 is played by a dpkg-query wrapper on PATH (every other
# package is asked of the real one), apt-get by a recorder.
set -eu
[ -z "$STOCK" ] || { echo "layer only"; exit 77; }
dir="$TESTBIN/host/wine_versions"
rm -rf "$dir"
mkdir -p "$dir/bin"
fail=0
real_dpkg_query=$(command -v dpkg-query)
codename=$(. /etc/os-release && echo "$VERSION_CODENAME")

cat >"$dir/bin/dpkg-query" <<EOF
#!/bin/sh
# FAKE_WINE: the wine64 (and wine64-tools) version to report; empty: none
for a; do pkg=\$a; done
case \$pkg in
    wine64|wine64-tools) ;;
    *) exec $real_dpkg_query "\$@" ;;
esac
[ -n "\$FAKE_WINE" ] || { echo "dpkg-query: no packages found matching \$pkg" >&2; exit 1; }
for a; do
    case \$a in
        -f=*|--showformat=*) printf '%s' "\${a#*=}" | sed "s/\\\${db:Status-Status}/installed/; s/\\\${Status}/install ok installed/; s/\\\${Version}/\$FAKE_WINE/; s/\\\\\\\\n\$//"; echo ;;
    esac
done
EOF
for t in apt-get sudo; do
    printf '#!/bin/sh\necho "%s $*" >>"%s/calls"\n' "$t" "$dir" >"$dir/bin/$t"
done
chmod +x "$dir/bin"/*
PATH="$dir/bin:$PATH"
export PATH FAKE_WINE

# config.sh
config() {
    FAKE_WINE=$1
    got=$(sh -c '. "$1/tools/config.sh"; echo "$WINE_VERSION|$WINE_SERIES"' sh "$TOP")
    if [ "$got" = "$2" ]; then echo "installed '$1': $got"; else echo "installed '$1': '$got', expected '$2'"; fail=1; fi
}
config 8.0~repack-4 "8.0~repack-4|wine-8.0"
config 10.0~repack-6 "10.0~repack-6|wine-10.0"
config 9.0~repack-1 "9.0~repack-1|"
config 10.0~repack-7 "10.0~repack-7|"
case $codename in
    bookworm) config "" "8.0~repack-4|wine-8.0" ;;
    trixie) config "" "10.0~repack-6|wine-10.0" ;;
    *) config "" "|" ;;
esac

# setup.sh and configure with an unsupported Wine: a clear error, nothing
# installed or fetched, no cache made
FAKE_WINE=9.0~repack-1
rc=0
sh "$TOP/tools/setup.sh" "$dir/cache" >"$dir/setup.out" 2>&1 || rc=$?
cat "$dir/setup.out"
[ $rc != 0 ] && grep -q "the installed wine64 is 9.0~repack-1; the layer supports Debian's Wine 8.0~repack-4 (Debian 12, bookworm) and 10.0~repack-6 (Debian 13, trixie)" "$dir/setup.out" ||
    { echo "setup.sh: exit $rc, no list of the supported versions"; fail=1; }
[ ! -e "$dir/calls" ] || { echo "setup.sh ran: $(cat "$dir/calls")"; fail=1; }
[ ! -e "$dir/cache" ] || { echo "setup.sh made $dir/cache"; fail=1; }

mkdir -p "$dir/objdir"
rc=0
(cd "$dir/objdir" && "$TOP/configure" -q) >"$dir/configure.out" 2>&1 || rc=$?
cat "$dir/configure.out"
[ $rc != 0 ] && grep -q "error: the installed wine64 is 9.0~repack-1; the layer supports Debian's Wine 8.0~repack-4" "$dir/configure.out" ||
    { echo "configure: exit $rc, no list of the supported versions"; fail=1; }
[ ! -e "$dir/objdir/Makefile" ] || { echo "configure wrote a Makefile"; fail=1; }

# setup.sh with no Wine installed: the distribution's own, at its version
FAKE_WINE=""
case $codename in
    bookworm) own=8.0~repack-4 ;;
    trixie) own=10.0~repack-6 ;;
    *) own="" ;;
esac
if [ -n "$own" ]; then
    rc=0
    sh "$TOP/tools/setup.sh" "$dir/cache" >"$dir/setup-none.out" 2>&1 || rc=$?
    cat "$dir/setup-none.out"
    grep -q "no wine64 installed: building for Debian $codename's own, $own" "$dir/setup-none.out" &&
        grep -q "apt-get install .*wine64=$own wine64-tools=$own" "$dir/calls" ||
        { echo "setup.sh with no Wine: exit $rc, did not install wine64=$own:"; cat "$dir/calls"; fail=1; }
    # the (pretend) installation did not install it: said so, nothing fetched
    [ $rc != 0 ] && grep -q "wine64 $own is not installed after apt-get install (dpkg: not installed)" "$dir/setup-none.out" &&
        [ ! -e "$dir/cache" ] || { echo "setup.sh went on without wine64"; fail=1; }
fi
exit $fail

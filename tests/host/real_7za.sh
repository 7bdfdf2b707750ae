#!/bin/sh
# A real program blocked reading a pipe: 7-Zip's 7za.exe (npm 7zip-bin
# 5.2.0, fetched by tools/setup.sh) archiving its standard input
# (`7za a -si`), which is a FIFO nobody writes yet. One of its threads is
# Blocked in a host call on the FIFO (programs/hostwait.c asks the layer);
# once a line is written and the FIFO closed, 7za makes the archive, and
# the line comes back out of it.
set -eu
[ -z "$STOCK" ] || { echo "layer only"; exit 77; }
. "$TOP/tools/testlib.sh"
sevenza="$TOP/build/cache/npm/7zip-bin-5.2.0/package/win/x64/7za.exe"
[ -f "$sevenza" ] || { echo "no $sevenza: tools/setup.sh fetches it (network)"; exit 77; }
dir="$TESTBIN/host/real_7za"
mkdir -p "$dir"
build_exe "$TOP/tests/host/programs/hostwait.c" "$dir/hostwait.exe"
cp "$sevenza" "$dir/7za.exe"
rm -f "$dir/fifo" "$dir/out.7z"
mkfifo "$dir/fifo"
fail=0

# a writer kept open on fd 3, so that 7za's reads wait for data; no Wine
# process inherits it (the wineserver would keep the FIFO open)
exec 3<>"$dir/fifo"
(cd "$dir" && exec "$LAYER" 7za.exe a -siline.txt out.7z <"$dir/fifo" >"$dir/7za.out" 2>"$dir/7za.err" 3>&-) &
seven=$!
if (cd "$dir" && "$LAYER" hostwait.exe 7za.exe "$dir/fifo" >"$dir/hostwait.out" 2>"$dir/hostwait.err" 3>&-); then
    tr -d '\r' <"$dir/hostwait.out"
else
    echo "7za's reader was not seen Blocked on the FIFO:"; tr -d '\r' <"$dir/hostwait.out"; fail=1
fi
echo "a line through 7za" >&3
exec 3>&-
wait $seven && echo "7za: archived its standard input" || { echo "7za failed:"; tail -5 "$dir/7za.out"; fail=1; }
back=$(cd "$dir" && "$LAYER" 7za.exe x -so out.7z 2>/dev/null | tr -d '\r')
[ "$back" = "a line through 7za" ] && echo "the line came back out of the archive" ||
    { echo "out of the archive: '$back'"; fail=1; }

"$LAYER" --kill
exit $fail

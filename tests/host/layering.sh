#!/bin/sh
# Fewer places to port (issue 17 point 5), kept so:
# - every include of ours in dlls/ntdll runs downward, in the layers
#   docs/ARCHITECTURE.md lists ("Include layering in dlls/ntdll"): a file
#   includes its own header and the headers of layers below it, never one
#   of its own layer or above;
# - no two functions of ours (dlls/, programs/, server/) share a name, so
#   that grep finds each once; a module's header may carry the stub of a
#   function its .c file defines for the other architectures;
# - the PE-header check and the .pdata binary search exist once, in
#   dlls/ntdll/pe_image.h.
set -eu
[ -z "$STOCK" ] || { echo "layer only"; exit 77; }
cd "$TOP"
bad=0

# the layer of each file of ours in dlls/ntdll, from the top (1) down
layer_of() {
    case ${1%.[ch]} in
        thread_frames|watchdog|wait_chain) echo 1 ;;
        remote_frames) echo 2 ;;
        backtrace|host_unwind) echo 3 ;;
        unwind_cache) echo 4 ;;
        unwind_codes|function_table|walk_names|wait_graph) echo 5 ;;
        frame_source|pe_image|page_cache|dynamic_tables|wait_record|blocked_frame|wow64_stop|memory_file|x86_frames) echo 6 ;;
        *) echo 0 ;;
    esac
}

files=$(cd dlls/ntdll && find . -name '*.[ch]' | sed 's|^\./||' | sort)
for f in $files; do
    name=$(basename "$f")
    layer=$(layer_of "$name")
    if [ "$layer" = 0 ]; then
        echo "dlls/ntdll/$f has no layer: add it to docs/ARCHITECTURE.md and tests/host/layering.sh"
        bad=1
        continue
    fi
    for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "dlls/ntdll/$f"); do
        target=$(cd "$(dirname "dlls/ntdll/$f")" && ls "$inc" 2>/dev/null) || continue  # not ours
        inc_name=$(basename "$target")
        [ "${inc_name%.h}" = "${name%.[ch]}" ] && continue  # its own header
        inc_layer=$(layer_of "$inc_name")
        if [ "$inc_layer" -le "$layer" ]; then
            echo "dlls/ntdll/$f (layer $layer) includes $inc (layer $inc_layer): includes run downward"
            bad=1
        fi
    done
done

# Function definitions, Wine style: the name and its '(' on a line that
# starts in column 0, the body's '{' in column 0 after the parameters (or
# on the same line for a one-line inline stub).
defs=$(for f in $(find dlls programs server -name '*.[ch]' | sort); do
    awk -v file="$f" '
        function name_of(line) {
            gsub(/__attribute__ *\(\([^)]*\)\)/, "", line)
            sub(/\(.*/, "", line)
            n = split(line, w, /[ *]+/)
            return w[n]
        }
        /^[A-Za-z_][^;=]*\(/ && !/^(typedef|extern|#)/ {
            cand = name_of($0)
            if ($0 ~ /\{/) { print cand, file; cand = "" }
            else if ($0 ~ /;[ \t]*$/) cand = ""
            next
        }
        cand != "" && /^\{/ { print cand, file; cand = "" }
        cand != "" && /;[ \t]*$/ { cand = "" }
    ' "$f"
done | sort -u)
# a module's stub in its header counts as its .c file's definition
dups=$(echo "$defs" | sed 's/\.[ch]$//' | sort -u | awk '{ n[$1]++; f[$1] = f[$1] " " $2 ".c" }
    END { for (k in n) if (n[k] > 1 && k != "DECL_HANDLER") print k ":" f[k] }')
if [ -n "$dups" ]; then
    echo "$dups" | sed 's/^/two functions of ours share a name: /'
    bad=1
fi

# one PE-header check and one .pdata search
for pattern in 'IMAGE_DOS_SIGNATURE' 'IMAGE_NT_SIGNATURE' '>=[^;]*EndAddress'; do
    where=$(grep -rl -e "$pattern" dlls programs server | grep -v '^dlls/ntdll/pe_image.h$' || true)
    if [ -n "$where" ]; then
        echo "$pattern outside dlls/ntdll/pe_image.h:" $where
        bad=1
    fi
done

[ $bad = 0 ] && echo "$(echo "$files" | wc -w) files of dlls/ntdll in their layers, $(echo "$defs" | wc -l) functions, each name once"
exit $bad
